"""Terminal requests as data: SFT dialogs, RL prompts and the held-out evaluation split.

A :class:`Request` is one user message on one fixture, with its case (reference and checks). The
splits never share a phrasing template or an argument value:

- training data (SFT and RL) uses the training phrasings, training values, and the intents outside
  ``HELD_OUT_INTENTS``;
- single-turn training rows draw their fixture from ``TRAIN_FIXTURES`` anchors (half of them) or from
  ``EXTRA_FIXTURES`` more (names too many to memorise); rows that carry a command's output (multi-turn ones,
  closings, sessions) from the first ``OUTPUT_FIXTURES``, whose runs are cached;
- the held-out split uses the held-out phrasings, in three parts: ``seen_values`` (fixtures whose
  values are training values: the anchors the training data keeps returning to), ``new_values``
  (fixtures built from held-out values: every argument is one the model never saw; only intents
  whose request names an argument), and ``new_intents`` (the held-out intents, reported apart).

Single-turn training dialogs need no execution; multi-turn ones carry the real output of the
reference command (run in the sandbox on the materialized fixture, as the terminal would show it).
A share of the single-turn CMD and EDIT rows (``closing_share`` of ``CLOSING_INTENTS``) also carry what the terminal shows
after the action and a short closing MSG (:func:`closing_message`): the terminal sends the model every
result, and a model never trained on a second turn after them makes one up ("1 lines.").

    requests = training_requests(2000, seed=0)
    dialogs = [sft_messages(r, cache_dir) for r in requests]
    heldout = heldout_requests(seed=0)
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import re
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.checks import COMMAND_TIMEOUT_S, RUNS, Check, files_after, judge
from rusty_hf.data.terminal.fixtures import (
    EvolvedFixture,
    Fixture,
    cached_fixture_dir,
    materialize,
    python_fixture,
    rust_fixture,
)
from rusty_hf.data.terminal.intents import HELD_OUT_INTENTS, Case, Intent, cmd, render
from rusty_hf.data.terminal.values import ValuePool, is_new_value
from rusty_hf.protocol.actions import action_json, parse_action
from rusty_hf.protocol.copying import SHOWN_PREFIX, shown_lines, states_whole, tool_status
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT

PARTS = ("seen_values", "new_values", "new_intents")
TRAIN_FIXTURES = 64  # anchor fixture seeds (per kind): half the single-turn rows, and every seen_values request
EXTRA_FIXTURES = 4096  # more fixture seeds for the other half: names too many to memorise, so copying pays
ANCHOR_SHARE = 0.5
# Rows that carry a command's real output (multi-turn, closing, session rows) draw from the first OUTPUT_FIXTURES seeds
# (the anchors, then extras). On the 64 anchors alone each fixture came back ~170 times, and a closing could state an
# anchor's fact instead of reading the output (SFT seed 0: 0 of 6 `what_changed` dev closings named the untracked file
# `git status` printed; an anchor's name came instead). Over seeds 0-2 the suites did not move (catalogue_s56.json).
# Each fixture more costs one build (~60 ms) and its runs, once.
OUTPUT_FIXTURES = 512
HELD_OUT_PER_INTENT = {"seen_values": 6, "new_values": 6, "new_intents": 10}
# Intents that read whatever repository they are in (list, show, head/tail, count, search, find): drawn on a Rust crate
# this share of the time. Drawn on Python fixtures alone, `.rs` and `Cargo.toml` were only ever built (`cargo ...`), a
# `.py` mostly run and a definition always a `def`: "show me lib.rs" gave `cargo check`, "cat Cargo.toml" `cargo build`.
READS_ANY_REPO = frozenset({"list_root", "list_dir", "file_details", "show_file", "head_file", "tail_file", "last_line",
                            "nth_line", "first_line", "count_lines", "count_words", "count_bytes", "search_text",
                            "grep_file", "find_definition", "find_by_name", "find_by_ext"})  # fmt: skip
RUST_REPO_SHARE = 0.3
# What the issue names as asked first (list, show, count, search, run the tests, git status/diff/log, create a file or
# a script, short questions): these intents are drawn twice as often as the others (`training_requests`)
ASKED_FIRST = frozenset({"list_root", "list_dir", "show_file", "count_lines", "search_text", "run_py_tests", "git_status",
                         "git_diff", "git_log", "create_file", "create_script", "explain"})  # fmt: skip
# Single-turn intents whose training rows may go on to a closing "Done." (``closing_share``): not those whose
# command a multi-turn intent runs to state an answer (wc, find, git log, git status, python3: a quickstart
# run that closed those too answered "Done." to "how many .py files?" after the count), nor those on the
# Rust fixture (a closing row runs its command, and cargo compiles for seconds per run).
CLOSING_INTENTS = frozenset({
    "list_root", "list_dir", "show_file", "head_file", "file_details", "search_text", "find_definition",
    "find_todo", "git_diff", "append_line", "replace_text", "create_file", "create_script", "delete_file", "tail_file",
})  # fmt: skip


# Intents that change the work dir: in a training session only the last turn may be one, so every earlier
# turn's reference (and the fact its MSG states) holds on the fixture as built.
WRITE_INTENTS = frozenset({"append_line", "replace_text", "create_file", "create_script", "delete_file", "delete_build",
                           "copy_file", "rename_file", "empty_file"})  # fmt: skip
SESSION_TURNS = (4, 8)  # requests in a row per training session (the conversation suite plays 5-8; at 3-6 its turns 5-8 went worse)
# How a user names the file of the turn before in a conversation ("how many lines does it have?"); a template that
# begins with the file takes one that can begin a sentence
REFERRING = ("it", "it", "that file", "that file", "the same file", "this file")
REFERRING_FIRST = ("that file", "the same file", "this file")
REFER_TRIES = 24  # builds of a turn's intent drawn until one acts on the file of the turn before
# Requests that name no file where they need one ("cat it", "count the lines"), answered "Which file?": in a training
# session only before any turn has named a file. After one, "it" is that file; a session that asked "Which file?"
# there taught the opposite of the turns that act on it (40 of 1,280 sessions asked right after a turn on a file, and
# a model answered "cat it" with "Which file?" in 4 of 75 development turns).
NAMES_NO_FILE = frozenset({"ask_detail"})


@dataclass(frozen=True)
class Request:
    """One user message on one fixture."""

    intent: str
    text: str
    fixture: Fixture
    case: Case
    part: str = "train"  # "train" or one of PARTS
    closing: bool = False  # a single-turn training row that goes on: the action's result, then a closing MSG

    @property
    def multi_turn(self) -> bool:
        return self.case.final is not None

    def row(self) -> dict:
        """The columns of an RL or evaluation dataset row (prompt as chat messages; checks as JSON)."""
        return {
            "prompt": [{"role": "system", "content": RUSTY_SYSTEM_PROMPT}, {"role": "user", "content": self.text}],
            "intent": self.intent,
            "part": self.part,
            "fixture": json.dumps({"kind": self.fixture.kind, "commits": self.fixture.commits,
                                   "dirty": self.fixture.dirty, "facts": self.fixture.facts}),  # fmt: skip
            "check": self.case.first.to_json(),
            "final_check": self.case.final.to_json() if self.case.final else "",
            "reference": json.dumps(self.case.actions),
            "args": list(self.case.args),
        }


def fixture_from_row(text: str) -> Fixture:
    raw = json.loads(text)
    commits = tuple((message, changes) for message, changes in raw["commits"])
    return Fixture(raw["kind"], commits, raw["dirty"], raw["facts"])


@functools.lru_cache(maxsize=16384)
def _fixture(kind: str, split: str, seed: int) -> Fixture:
    """The fixture ``seed`` of a kind and split, built once per process (requests on it share the one object;
    nothing writes to a fixture: a changed work dir is a new `EvolvedFixture`)."""
    digest = hashlib.sha256(f"{kind}/{split}/{seed}".encode()).hexdigest()
    pool = ValuePool(split, seed=int(digest[:12], 16))
    return python_fixture(pool) if kind == "python" else rust_fixture(pool)


def _kind(intent: Intent, split: str, fixture_seed: int) -> str:
    """The fixture kind of a request: the intent's, or for `READS_ANY_REPO` a Rust crate `RUST_REPO_SHARE` of the
    time (decided by the fixture's seed, so the draws of every other row stay what they were)."""
    if intent.name not in READS_ANY_REPO:
        return intent.fixture
    digest = hashlib.sha256(f"kind/{intent.name}/{split}/{fixture_seed}".encode()).digest()
    return "rust" if int.from_bytes(digest[:8], "big") < RUST_REPO_SHARE * 2**64 else intent.fixture


def _request(intent: Intent, split_values: str, split_phrasing: str, fixture_seed: int, rng: random.Random, part: str,
             closing: bool = False, kind: str | None = None, fixture: Fixture | None = None) -> Request:  # fmt: skip
    """One request of ``intent`` on the fixture ``fixture_seed``; ``kind`` fixes the fixture's kind (a session's),
    ``fixture`` the fixture itself (a session's work dir after a write)."""
    fixture = fixture or _fixture(kind or _kind(intent, split_values, fixture_seed), split_values, fixture_seed)
    pool = ValuePool(split_values, rng=random.Random(rng.random()))
    case = intent.build(fixture, rng, pool)
    text = render(rng.choice(intent.templates(split_phrasing)), case.slots, rng)
    return Request(intent.name, text, fixture, case, part, closing)


def _folded(text: str) -> str:
    """Case, spaces and punctuation folded, as the blind suites' leak guards compare texts."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


@functools.lru_cache(maxsize=1)
def _suite_texts() -> tuple[frozenset[str], int]:
    """The request texts of every blind and conversation suite (`blind/*.jsonl`, read here: the blind package
    imports this module), folded, and the most words one holds."""
    texts = []
    for path in sorted((Path(__file__).parent / "blind").glob("*.jsonl")):  # a header, fixtures, requests or sessions
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            row = json.loads(line) if line.strip() else {}
            texts += [row["text"]] if "text" in row else [turn["text"] for turn in row.get("turns", ())]
    folded = frozenset(_folded(t) for t in texts) - {""}
    return folded, max((len(t.split()) for t in folded), default=0)


def says_a_suite_request(text: str) -> bool:
    """Whether ``text`` is, or holds, a request of the blind or conversation suite word for word (folded, as a run
    of its words): every split the generator makes (training, held-out, dev) draws again (a common phrasing on a
    fixture's notes.txt can coincide with a blind request). A set lookup per run of words: the training data asks
    it ~20,000 times, and a scan of every suite text each time was 8M comparisons."""
    suite, longest = _suite_texts()
    words = _folded(text).split()
    return any(" ".join(words[i:j]) in suite
               for i in range(len(words)) for j in range(i + 1, min(len(words), i + longest) + 1))


def _fresh_request(intent: Intent, fixture_seed: int, rng: random.Random, closing: bool = False, kind: str | None = None,
                   fixture: Fixture | None = None) -> Request:  # fmt: skip
    """A training request that is no suite request (`says_a_suite_request`), drawn again until it is not."""
    while True:
        request = _request(intent, "train", "train", fixture_seed, rng, "train", closing, kind, fixture)
        if not says_a_suite_request(request.text):
            return request


def training_requests(n: int, seed: int = 0, intents: Iterable[str] | None = None, multi_turn_share: float = 0.2,
                      closing_share: float = 0.0) -> list[Request]:  # fmt: skip
    """``n`` training requests, intents drawn evenly but `ASKED_FIRST` twice as often (multi-turn ones at
    ``multi_turn_share`` of the rows); ``closing_share`` of the single-turn CMD and EDIT rows go on with the result
    and a closing MSG."""
    catalogue = all_intents()
    names = [k for k in (intents or catalogue) if k not in HELD_OUT_INTENTS]
    single = [k for k in names if not catalogue[k].multi_turn]
    multi = [k for k in names if catalogue[k].multi_turn]
    single_weights, multi_weights = ([2 if k in ASKED_FIRST else 1 for k in group] for group in (single, multi))
    rng = random.Random(seed)
    closing_rng = random.Random(f"closing/{seed}")  # its own stream: the other rows stay what they were
    out = []
    for _ in range(n):
        pick = multi if multi and (not single or rng.random() < multi_turn_share) else single
        intent = catalogue[rng.choices(pick, weights=multi_weights if pick is multi else single_weights)[0]]
        closing = intent.name in CLOSING_INTENTS and closing_rng.random() < closing_share
        if intent.multi_turn or closing:  # a command's real output: on the fixtures whose runs are cached
            seed = rng.randrange(OUTPUT_FIXTURES)
        elif rng.random() < ANCHOR_SHARE:
            seed = rng.randrange(TRAIN_FIXTURES)
        else:
            seed = TRAIN_FIXTURES + rng.randrange(EXTRA_FIXTURES)
        out.append(_fresh_request(intent, seed, rng, closing))
    return out


@functools.lru_cache(maxsize=1)
def answered_in_words() -> tuple[str, ...]:
    """The trained single-turn intents whose reference answer is a MSG: an acknowledgement, a greeting, who Rusty is,
    an explanation, a refusal, a question back."""
    catalogue = all_intents()
    return tuple(sorted(k for k, intent in catalogue.items() if k not in HELD_OUT_INTENTS and not intent.multi_turn
                        and _request(intent, "train", "train", 0, random.Random(0), "train").case.actions[0]["action"] == "MSG"))


def training_sessions(n: int, seed: int = 0, intents: Iterable[str] | None = None, states_output: bool = False,
                      write_share: float = 0.0, cache_dir: str | Path | None = None, workers: int = 2,
                      refer_share: float = 0.0, missing_share: float = 0.0) -> list[list[Request]]:  # fmt: skip
    """``n`` training sessions: 4-8 training requests in a row on one of ``OUTPUT_FIXTURES`` (Python), as a user types
    them into `rusty-terminal`. A turn that is not the session's last is answered to the end, so the next request
    follows a finished answer: a MSG-only intent, a multi-turn one, or one of ``CLOSING_INTENTS`` closed by its
    status; with ``states_output`` (the closings `sft_messages` writes with it) any command, closed by its case's
    ``closing``, its short output stated whole, or its status. The last turn may change the work dir
    (``WRITE_INTENTS``) or stop at its action; in ``write_share`` of the sessions one earlier turn changes it too, and
    the turns after it are drawn on the work dir as it left it (`_go_on_after_write`: needs ``cache_dir``).
    ``refer_share`` of the turns after one that named a file act on that file again (an intent that takes a file) and
    name it as a user would in a conversation, "it" or "that file" (`_referring`): the model finds it earlier in the
    session. ``missing_share`` of the turns that read a named file name one the work dir lacks (a file of another
    fixture: a name misremembered), where the reference command then fails; the turn closes with what failed
    (`_missing_file`: run in the sandbox, needs ``cache_dir``)."""
    catalogue = all_intents()
    names = [k for k in (intents or catalogue) if k not in HELD_OUT_INTENTS and catalogue[k].fixture == "python"]
    words = answered_in_words()
    answered = [k for k in names if k not in WRITE_INTENTS
                and (states_output or catalogue[k].multi_turn or k in CLOSING_INTENTS or k in words)]  # fmt: skip
    rng = random.Random(f"sessions/{seed}")  # its own stream: the single rows stay what they were
    writes_rng = random.Random(f"session-writes/{seed}")  # and its own again: the sessions without a write stay too
    refer_rng = random.Random(f"session-refers/{seed}")  # and its own: with refer_share 0 every session stays as it was
    takes_file = {k for k in names if any("{file}" in t for t in catalogue[k].templates("train"))}
    refer_last, refer_earlier = ([k for k in pool if k in takes_file] for pool in (names, answered))
    missing_rng = random.Random(f"session-missing/{seed}")  # and its own
    naming = [k for k in answered if k not in NAMES_NO_FILE]  # what a turn asks instead, once a file is named
    if missing_share and cache_dir is None:
        raise ValueError("turns on a missing file run their command to see it fail: pass cache_dir")
    out, going_on = [], []
    for i in range(n):
        fixture_seed = rng.randrange(OUTPUT_FIXTURES)  # their command outputs are cached
        turns = rng.randint(*SESSION_TURNS)
        picks = [rng.choice(answered) for _ in range(turns - 1)] + [rng.choice(names)]
        session, drawn = [], []
        for k, name in enumerate(picks):
            request = _fresh_request(catalogue[name], fixture_seed, rng, kind="python")  # one work dir
            drawn.append(request)
            if name in NAMES_NO_FILE and any("file" in turn.case.slots for turn in drawn[:-1]):
                # decided on the turns as drawn, with a stream of the turn's own: the shares below leave it as it is
                request = _after_a_named_file(drawn[:-1], fixture_seed, random.Random(f"session-asks/{seed}/{i}/{k}"),
                                              refer_last if k == turns - 1 else refer_earlier, naming) or request
            if session and "file" in session[-1].case.slots and refer_rng.random() < refer_share:
                on_files = refer_last if k == turns - 1 else refer_earlier
                request = _referring(catalogue[refer_rng.choice(on_files)], session[-1], fixture_seed, refer_rng) or request
            if k < turns - 1 and not request.multi_turn and request.case.actions[0]["action"] != "MSG":
                request = replace(request, closing=True)
            if missing_share and missing_rng.random() < missing_share:
                request = _missing_file(request, missing_rng, cache_dir) or request
            session.append(request)
        out.append(session)
        if writes_rng.random() < write_share:
            going_on.append((i, writes_rng.randrange(turns - 1), writes_rng.random()))
    writes = [k for k in names if k in WRITE_INTENTS]
    if going_on and writes:
        if cache_dir is None:
            raise ValueError("sessions that go on after a write run it on the fixture: pass cache_dir")

        def go_on(plan: tuple[int, int, float]) -> list[Request]:
            i, k, draw = plan
            return _go_on_after_write(out[i], k, random.Random(draw), writes, answered, names, cache_dir)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            for (i, _, _), session in zip(going_on, list(pool.map(go_on, going_on))):
                out[i] = session
    return out


def _after_a_named_file(session: list[Request], fixture_seed: int, rng: random.Random, on_files: list[str],
                        others: list[str]) -> Request | None:
    """The turn in place of a request that names no file ("cat it" -> "Which file?", `NAMES_NO_FILE`) once the
    session has named one: there "it" is that file. After a turn on a file, a turn that acts on it and calls it
    "it" (`_referring`); otherwise another intent of the session's."""
    catalogue = all_intents()
    if "file" in session[-1].case.slots and on_files:
        referring = _referring(catalogue[rng.choice(on_files)], session[-1], fixture_seed, rng)
        if referring is not None:
            return referring
    return _fresh_request(catalogue[rng.choice(others)], fixture_seed, rng, kind="python") if others else None


def _referring(intent: Intent, before: Request, fixture_seed: int, rng: random.Random) -> Request | None:
    """A training request of ``intent`` on the file ``before`` named, naming it "it" or "that file" (`REFERRING`);
    None where ``before`` named no file, or no build of ``intent`` in `REFER_TRIES` acts on it."""
    path = before.case.slots.get("file")
    templates = [t for t in intent.templates("train") if "{file}" in t]
    if path is None or not templates:
        return None
    for _ in range(REFER_TRIES):
        request = _request(intent, "train", "train", fixture_seed, rng, "train", kind="python")
        if request.case.slots.get("file") == path:
            break
    else:
        return None
    template = rng.choice(templates)
    phrase = rng.choice(REFERRING_FIRST if template.startswith("{file}") else REFERRING)
    text = render(template, {**request.case.slots, "file": phrase}, rng)
    return None if says_a_suite_request(text) else replace(request, text=text)


def _missing_file(request: Request, rng: random.Random, cache_dir: str | Path) -> Request | None:
    """``request`` asked of a file the work dir lacks, with the same reference command and a closing after its
    result; None where ``request`` reads no named file, writes, or its command does not fail on the missing file
    (``git log -- x`` prints nothing and exits 0). The missing name is a file of another training fixture with the
    same extension: a name a user may misremember."""
    path, first = request.case.slots.get("file"), request.case.actions[0]
    if path is None or request.intent in WRITE_INTENTS or first["action"] != "CMD":
        return None
    templates = [t for t in all_intents()[request.intent].templates("train") if "{file}" in t]
    here = request.fixture.tree_files()
    other = _fixture("python", "train", rng.randrange(TRAIN_FIXTURES))
    names = sorted(p for p in other.tree_files() if p not in here and Path(p).suffix == Path(path).suffix)
    if not templates or not names:
        return None
    missing = rng.choice(names)
    command = re.sub(rf"(?<![\w./-]){re.escape(path)}(?![\w./-])", missing, first["command"])
    text = render(rng.choice(templates), {**request.case.slots, "file": missing}, rng)
    if command == first["command"] or says_a_suite_request(text):
        return None
    case = replace(request.case, slots={**request.case.slots, "file": missing}, actions=(cmd(command),), final=None,
                   closing=None, args=(missing,))  # fmt: skip
    failing = replace(request, text=text, case=case, closing=True)
    return failing if tool_status(observation(failing, cache_dir)) not in (None, "Done.") else None


def evolved_fixture(start: Fixture, files: dict[str, bytes]) -> EvolvedFixture:
    """``start`` as an action left its work dir (``files``, as `Workspace.tree` reads them), with the facts of what git
    shows now: ``modified``, ``deleted`` and ``untracked`` files, and ``added_lines`` where the changes to committed
    files only append lines (`git diff`'s case); the facts of what is in the files stay ``start``'s."""
    committed = Fixture(start.kind, start.commits, {}).tree_files()
    now = {path: data.decode("utf-8", "replace") for path, data in files.items()
           if "__pycache__" not in path.split("/") and not path.endswith(".pyc")}  # fmt: skip
    ignored = tuple(line for line in now.get(".gitignore", "").splitlines() if line.endswith("/"))
    modified = sorted(path for path in committed if path in now and now[path] != committed[path])
    deleted = sorted(path for path in committed if path not in now)
    untracked = sorted({_as_git_names(path, committed) for path in now if path not in committed and not path.startswith(ignored)})
    facts = {key: value for key, value in start.facts.items() if key not in ("added_line", "added_lines")}
    facts.update(modified=modified, deleted=deleted, untracked=untracked)
    added = []
    for path in modified:
        old, new = committed[path].splitlines(), now[path].splitlines()
        if new[: len(old)] != old:
            break
        added += new[len(old):]
    else:
        if added and not deleted:
            facts["added_lines"] = added
    dirty = {path: text for path, text in now.items() if committed.get(path) != text}
    return EvolvedFixture(start.kind, start.commits, dirty, facts, removed=frozenset(deleted))


def _as_git_names(path: str, tracked: dict[str, str]) -> str:
    """An untracked file as `git status` names it: its shallowest folder that holds no tracked file ("hedge/"),
    else the file itself."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        folder = "/".join(parts[:depth]) + "/"
        if not any(name.startswith(folder) for name in tracked):
            return folder
    return path


def _go_on_after_write(session: list[Request], k: int, rng: random.Random, writes: list[str], answered: list[str],
                       names: list[str], cache_dir: str | Path) -> list[Request]:  # fmt: skip
    """``session`` with turn ``k`` a write (one of ``writes``) and the turns after it drawn again on the work dir as the
    write left it: the same intent where its reference still passes its own checks there (run in the sandbox), else
    another; the session ends early where none does."""
    catalogue = all_intents()
    start = session[0].fixture
    write = _fresh_request(catalogue[rng.choice(writes)], 0, rng, closing=True, fixture=start)
    action = parse_action(action_json(write.case.actions[0]))
    _, (files, _) = files_after(materialize(start, cache_dir), action, COMMAND_TIMEOUT_S)
    fixture = evolved_fixture(start, files)
    if fixture.tree_files() == start.tree_files():  # refused, or changed nothing: the session as it was
        return session
    root = materialize(fixture, cache_dir)
    out = [*session[:k], write]
    for j, planned in enumerate(session[k + 1:], start=k + 1):
        last = j == len(session) - 1
        pool = names if last else answered
        for name in [planned.intent] + [rng.choice(pool) for _ in range(7)]:
            try:
                request = _fresh_request(catalogue[name], 0, rng, fixture=fixture)
            except (KeyError, IndexError, ValueError):  # a fact the write took away (the untracked file it deleted)
                continue
            if _holds(request, root):
                break
        else:
            return out
        if not last and not request.multi_turn and request.case.actions[0]["action"] != "MSG":
            request = replace(request, closing=True)
        out.append(request)
    return out


def _holds(request: Request, root: Path) -> bool:
    """Whether the request's reference passes its own checks on ``root`` (its first action, and a multi-turn one's MSG)."""
    actions = request.case.actions
    if not judge(request.case.first, parse_action(action_json(actions[0])), root).ok:
        return False
    return not request.multi_turn or judge(request.case.final, parse_action(action_json(actions[1])), root).ok


def heldout_requests(seed: int = 0, per_intent: dict[str, int] | None = None) -> list[Request]:
    """The held-out split: held-out phrasings on seen and on new values, and the held-out intents. Each intent draws
    from its own stream, so a change to one intent's builder leaves every other intent's requests as they were."""
    per_intent = {**HELD_OUT_PER_INTENT, **(per_intent or {})}
    out = []
    for name, intent in sorted(all_intents().items()):
        rng = random.Random(f"heldout/{seed}/{name}")
        held_intent = name in HELD_OUT_INTENTS
        for part in (("new_intents",) if held_intent else ("seen_values", "new_values")):
            for _ in range(per_intent[part]):
                values = "test" if part == "new_values" else "train"
                for _ in range(20):  # new_values: redraw until every argument is one training never saw
                    fixture_seed = rng.randrange(TRAIN_FIXTURES) if values == "train" else rng.randrange(1 << 20)
                    request = _request(intent, values, "test", fixture_seed, rng, part)
                    if says_a_suite_request(request.text):  # the blind suites stay apart from every split
                        continue
                    if part != "new_values" or (request.case.args and all(map(is_new_value, request.case.args))):
                        out.append(request)
                        break
    return out


def dev_requests(per_intent: int = 4, seed: int = 0) -> list[Request]:
    """A development split for tuning decoding settings without touching the held-out one: training
    phrasings and training words, on fixtures no training row uses (``part`` "dev"), trained intents only; each
    intent from its own stream, as the held-out split."""
    first_unused = TRAIN_FIXTURES + EXTRA_FIXTURES
    out = []
    for name, intent in sorted(all_intents().items()):
        if name in HELD_OUT_INTENTS:
            continue
        rng = random.Random(f"dev/{seed}/{name}")
        for _ in range(per_intent):
            request = _request(intent, "train", "train", first_unused + rng.randrange(1 << 16), rng, "dev")
            while says_a_suite_request(request.text):  # the blind suites stay apart from every split
                request = _request(intent, "train", "train", first_unused + rng.randrange(1 << 16), rng, "dev")
            out.append(request)
    return out


def observation(request: Request, cache_dir: str | Path) -> str:
    """What the terminal shows after the reference action of a request: a CMD's run in the sandbox (once),
    or the line a written EDIT gets.

    A CMD's is kept beside the fixture (``<fixture folder>.outputs/<sha of the command>``), so rebuilding the SFT
    data does not run the same command again.
    """
    first = request.case.actions[0]
    if first["action"] == "EDIT":  # as rusty_hf.agent.session writes it
        return f"wrote {first['path']} ({len(first['content'])} chars)"
    root = materialize(request.fixture, cache_dir)
    command = first["command"]
    folder = cached_fixture_dir(request.fixture, cache_dir)
    saved = folder.with_name(folder.name + ".outputs") / hashlib.sha256(command.encode()).hexdigest()[:16]
    if saved.is_file():
        return saved.read_text(encoding="utf-8")
    text = RUNS.run(root, command, timeout=60)[0]
    saved.parent.mkdir(parents=True, exist_ok=True)
    # A unique partial file per writer (threads of one process share a pid), renamed into place.
    fd, partial = tempfile.mkstemp(dir=saved.parent, prefix=saved.name, suffix=".partial")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(partial, saved)
    return text


def closing_message(result: str, states_output: bool = False) -> str:
    """Rusty's MSG after a single-turn action's result: the status ("Done.", "Failed: exit code 1."); with
    ``states_output``, a command that succeeded with a short output (at most ``SHOWN_LINES`` lines and
    ``SHOWN_CHARS`` characters) gets what it showed instead: "It shows: README.md, app.py." (``SHOWN_PREFIX``
    and `copying.shown_lines`, the form constrained decoding lets hold only what the output holds)."""
    lines = shown_lines(result)  # what a command that succeeded printed
    if states_output and states_whole(lines):
        shown = ", ".join(lines)
        return SHOWN_PREFIX + shown + ("" if shown.endswith((".", "!", "?")) else ".")
    return tool_status(result) or "Done."


def sft_messages(request: Request, cache_dir: str | Path | None = None, states_output: bool = False) -> list[dict[str, str]]:
    """The chat messages of one training dialog; multi-turn and closing ones need ``cache_dir`` for the fixture.
    ``states_output``: a closing MSG states a short output (`closing_message`)."""
    actions = request.case.actions
    messages = [{"role": "system", "content": RUSTY_SYSTEM_PROMPT}, {"role": "user", "content": request.text},
                {"role": "assistant", "content": action_json(actions[0])}]  # fmt: skip
    if request.multi_turn or request.closing:
        if cache_dir is None:
            raise ValueError("multi-turn dialogs carry a real command output: pass cache_dir for the fixtures")
        result = observation(request, cache_dir)
        messages.append({"role": "tool", "name": actions[0]["action"], "content": result})
        stated = request.case.closing if states_output and request.case.closing else closing_message(result, states_output)
        closing = actions[1] if request.multi_turn else {"action": "MSG", "message": stated}
        messages.append({"role": "assistant", "content": action_json(closing)})
    return messages


def session_messages(session: list[Request], cache_dir: str | Path, states_output: bool = False) -> list[dict[str, str]]:
    """The chat messages of one training session (`training_sessions`): one system prompt, then each turn's
    request, action, result and closing MSG as `sft_messages` writes them alone."""
    messages = sft_messages(session[0], cache_dir, states_output)
    for request in session[1:]:
        messages += sft_messages(request, cache_dir, states_output)[1:]
    return messages


def check_of(row: dict, final: bool = False) -> Check:
    return Check.from_json(row["final_check"] if final else row["check"])
