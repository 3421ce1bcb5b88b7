"""Executed checks for terminal requests: an action is judged by what it does to a fresh fixture copy.

A :class:`Check` says what a correct action achieves, never which string it must be:

- ``output``: a CMD whose output (stdout and stderr, run in the sandbox on a fresh copy of the fixture)
  holds, for each group of ``all_of``, one of its strings (a listing shows the names the reference
  listing shows; a test run shows its summary), and shows what the request did not ask for nowhere:
  none of ``none_of`` (the lines of files it did not ask about, older commits), none of ``no_names``
  as a whole name (files outside a listing, another file than the one counted) and, with ``number``,
  no number but that one (a count is the number, not a number among others); with ``no_counts``, no line that
  opens with a number (a listing of names, not ``wc``'s counts beside them);
- ``files``: after the action (an EDIT, or a CMD), the work dir holds exactly the fixture's files with
  ``files`` applied (content, or ``None`` for gone): nothing else changed; and each folder of ``dirs``
  (asked for: `mkdir`);
- ``runs``: after the action, ``run[0]`` run in the sandbox prints ``run[1]`` (a script that was asked for);
- ``msg``: a MSG holding one string of each ``all_of`` group (case-insensitive; numbers as whole
  numbers) and, as for output, none of ``none_of``, ``no_names`` and no number but ``number``; a
  question mark when ``question`` (asking for a missing detail).

Those walls are why a command that prints everything (``grep -rn . .``, ``cat * */*``, ``seq 0 5000``)
is not paid: see ``hacks.py`` for the suite every check is held to.

:func:`judge` runs the action through :class:`rusty_hf.agent.workspace.Workspace`, so a CMD gets the
same sandbox, ``.git`` bind and limits as in ``rusty-terminal``. Runs are cached per (fixture,
command): the same command on the same fixture is not executed twice in one process.

    verdict = judge(check, parse_action(reply), fixture_root)
    verdict.ok, verdict.reason, verdict.observation   # observation: what the model would see next
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from rusty_hf.agent.workspace import EXCLUDED_DIRS, PathRefused, Workspace
from rusty_hf.data.terminal.fixtures import copy_fixture
from rusty_hf.protocol import Action
from rusty_hf.sandbox.readback import read_back
from rusty_hf.sandbox.workdir import host_workdir_parent

CHECK_KINDS = ("output", "files", "runs", "msg")
COMMAND_TIMEOUT_S = 30.0  # cargo builds a crate in a few seconds; a hung command is cut here
MAX_OBSERVATION_CHARS = 1200  # what the model sees of a command's output in multi-turn data and episodes
SCRATCH_ROOM_MB = 64  # a fixture copy is well under 1 MB


def _scratch() -> tempfile.TemporaryDirectory:
    """A temp folder for one check's fixture copy: on /dev/shm where there is room, as the sandbox's own
    work dirs. Every check copies and deletes a fixture; on a disk each folder made and removed costs
    milliseconds (most of a check's time), in memory microseconds."""
    return tempfile.TemporaryDirectory(prefix="rusty-check-", dir=host_workdir_parent(SCRATCH_ROOM_MB))


@dataclass(frozen=True)
class Check:
    """What a correct action does (see the module docstring); JSON round-trips through ``to_json``."""

    kind: str
    all_of: tuple[tuple[str, ...], ...] = ()
    none_of: tuple[str, ...] = ()
    files: tuple[tuple[str, str | None], ...] = ()
    run: tuple[str, str] | None = None
    question: bool = False
    no_names: tuple[str, ...] = ()
    number: str = ""
    dirs: tuple[str, ...] = ()
    no_counts: bool = False

    def __post_init__(self) -> None:
        if self.kind not in CHECK_KINDS:
            raise ValueError(f"check kind must be one of {CHECK_KINDS}, got {self.kind!r}")

    def to_json(self) -> str:
        raw = dataclasses.asdict(self)
        if not raw["no_counts"]:
            del raw["no_counts"]  # the rows written before the field stay the same bytes
        return json.dumps(raw)

    @classmethod
    def from_json(cls, text: str) -> Check:
        raw = json.loads(text)
        raw["all_of"] = tuple(tuple(group) for group in raw.get("all_of", ()))
        raw["none_of"] = tuple(raw.get("none_of", ()))
        raw["no_names"] = tuple(raw.get("no_names", ()))
        raw["dirs"] = tuple(raw.get("dirs", ()))
        raw["files"] = tuple((path, content) for path, content in raw.get("files", ()))
        raw["run"] = tuple(raw["run"]) if raw.get("run") else None
        return cls(**raw)


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    observation: str | None = None  # the CMD/EDIT result as the session shows it


def contains(text: str, needle: str, *, fold: bool = False) -> bool:
    """``needle`` in ``text``; a number only as a whole number (7 is not in 17)."""
    if needle.isdigit():
        return re.search(rf"(?<![\d.]){needle}(?![\d])", text) is not None
    return needle.lower() in text.lower() if fold else needle in text


def names(text: str, name: str) -> bool:
    """``name`` in ``text`` as a whole name: 'ledger.py' is in './src/ledger.py:3' but not in 'old_ledger.py'."""
    return re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])(?!\.\w)", text) is not None


def numbers(text: str) -> list[str]:
    """The numbers ``text`` states: whole tokens, not digits inside a name ('v0.1.0', 'file2.txt')."""
    return re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)(?!\.\d)", text)


def _groups_ok(text: str, groups: tuple[tuple[str, ...], ...], fold: bool) -> str | None:
    for group in groups:
        if not any(contains(text, needle, fold=fold) for needle in group):
            return f"missing {group[0]!r}" + (f" (or {len(group) - 1} alternatives)" if len(group) > 1 else "")
    return None


def _excess(text: str, check: Check, fold: bool) -> str | None:
    """Why ``text`` says more than the request asked (see the module docstring), or None."""
    shown = next((needle for needle in check.none_of if contains(text, needle, fold=fold)), None)
    if shown is not None:
        return f"shows {shown!r}"
    named = next((name for name in check.no_names if names(text, name)), None)
    if named is not None:
        return f"names {named!r}"
    if check.no_counts:
        count = re.search(r"^\s*(\d+)\s", text, re.MULTILINE)
        if count is not None:
            return f"states a count ({count.group(1)}) beside the names"
    if check.number:
        stated = numbers(text)
        if not stated:
            return f"states no number (wants {check.number})"
        wrong = next((n for n in stated if n.lstrip("0") != check.number.lstrip("0")), None)
        if wrong is not None:
            return f"states {wrong}, not only {check.number}"
    return None


def _normal(content: str | None) -> str | None:
    if content is None:
        return None
    return "\n".join(line.rstrip() for line in content.strip("\n").splitlines())


_Tree = tuple[dict[str, bytes], frozenset[str]]  # a work dir's files and folders (`Workspace.tree`)


# A duration a tool prints about itself: unittest's "Ran 3 tests in 0.001s", pytest's "in 0.02s", cargo's "in 0.35s".
_DURATION = re.compile(r"(?<=\bin )\d+\.\d+(?=s\b)")


def steady(observation: str) -> str:
    """``observation`` with each duration a tool printed about itself written as zero, to the same decimals
    ("in 0.000s"): the one part of a reference run's result that changes from run to run (the sandbox names
    the run's uid, `Workspace`), so the SFT rows built from them are the same on every build."""
    return _DURATION.sub(lambda m: "0." + "0" * len(m.group().split(".")[1]), observation)


class _Runs:
    """(fixture, command) -> (result text, output, (files, folders) after), run once per process: threads asking
    for the same run at once wait for the first. The result text, what the next turn is shown, is `steady`; the
    output the checks read is as printed. The SFT rows, the reward and the saved outputs all see the one run."""

    def __init__(self) -> None:
        self._done: dict[tuple[str, str], tuple[str, str, _Tree]] = {}
        self._running: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def run(self, root: Path, command: str, timeout: float) -> tuple[str, str, _Tree]:
        key = (str(root), command)
        with self._lock:
            if key in self._done:
                return self._done[key]
            running = self._running.setdefault(key, threading.Lock())
        with running:
            with self._lock:
                if key in self._done:
                    return self._done[key]
            return self._run(key, root, command, timeout)

    def _run(self, key: tuple[str, str], root: Path, command: str, timeout: float) -> tuple[str, str, _Tree]:
        fixture = Workspace(root, timeout=timeout)  # a trial runs on a copy and writes nothing here
        try:
            trial = fixture.trial(command)
        except ValueError as exc:  # CommandRefused, WorkspaceTooBig: what the session would show
            observation = output = f"[not run: {exc}]"
            tree = fixture.tree()
        else:
            if trial.changes_nothing:  # most reads: no copy of the fixture to write into
                result, tree = trial.result, trial.before
            else:
                with _scratch() as tmp:
                    ws = Workspace(copy_fixture(root, Path(tmp) / "w"), timeout=timeout)
                    result = ws.apply(trial)
                    tree = ws.tree()
            observation, output = steady(result.describe(MAX_OBSERVATION_CHARS)), result.output
        with self._lock:
            self._done[key] = (observation, output, tree)
            self._running.pop(key, None)
        return observation, output, tree


RUNS = _Runs()


def files_after(root: Path, action: Action, timeout: float) -> tuple[str, _Tree]:
    """What the session shows after ``action`` on a copy of ``root``, and the copy's files and folders then."""
    if action.action == "CMD":
        observation, _, tree = RUNS.run(root, action.command, timeout)
        return observation, tree
    with _scratch() as tmp:
        ws = Workspace(copy_fixture(root, Path(tmp) / "w"), timeout=timeout)
        try:
            ws.write_file(action.path, action.content)
            observation = f"wrote {action.path} ({len(action.content)} chars)"
        except (PathRefused, OSError) as exc:
            observation = str(exc)
        return observation, ws.tree()


def observe(action: Action, root: Path, *, timeout: float = COMMAND_TIMEOUT_S) -> str:
    """What the session shows after a CMD or EDIT on a fresh copy of the fixture (for the next turn)."""
    return files_after(root, action, timeout)[0]


def fixture_files(root: Path) -> dict[str, bytes]:
    files, problem = read_back(str(root), skip_dirs=EXCLUDED_DIRS, max_bytes=64 << 20)
    if files is None:
        raise ValueError(f"fixture {root} cannot be read: {problem}")
    return files


def judge(check: Check, action: Action | None, root: Path, *, timeout: float = COMMAND_TIMEOUT_S) -> Verdict:
    """Judge one action against ``check`` on the materialized fixture at ``root`` (never modified)."""
    if action is None:
        return Verdict(False, "no valid action")
    if check.kind == "msg":
        if action.action != "MSG":
            return Verdict(False, f"expected a MSG, got {action.action}")
        missing = _groups_ok(action.message, check.all_of, fold=True) or _excess(action.message, check, fold=True)
        if missing is None and check.question and "?" not in action.message:
            missing = "asks nothing"
        return Verdict(missing is None, missing or "ok")
    if action.action == "MSG":
        return Verdict(False, "expected an action on the work dir, got a MSG")
    if check.kind == "output":
        if action.action != "CMD":
            return Verdict(False, "expected a CMD")
        observation, output, _ = RUNS.run(root, action.command, timeout)
        reason = _groups_ok(output, check.all_of, fold=False) or _excess(output, check, fold=False)
        return Verdict(reason is None, reason or "ok", observation)
    observation, (after, folders) = files_after(root, action, timeout)
    if check.kind == "files":
        expected = {name: data.decode("utf-8", "replace") for name, data in fixture_files(root).items()}
        for path, content in check.files:
            if content is None:
                expected.pop(path, None)
            else:
                expected[path] = content
        got = {name: _normal(data.decode("utf-8", "replace")) for name, data in after.items()}
        want = {name: _normal(text) for name, text in expected.items()}
        wrong = sorted(name for name in set(got) | set(want) if got.get(name) != want.get(name))
        if wrong:
            return Verdict(False, f"differs at {wrong[0]}", observation)
        missing = next((d for d in check.dirs if d.strip("/") not in folders), None)
        return Verdict(missing is None, f"no folder {missing}" if missing else "ok", observation)
    command, expected_output = check.run
    with _scratch() as tmp:
        work = Path(tmp) / "w"
        work.mkdir()
        ws = Workspace(work, timeout=timeout)
        for name, data in after.items():
            ws.write_file(name, data)
        output = ws.run(command).output
    ok = contains(output, expected_output)
    return Verdict(ok, "ok" if ok else f"{command!r} does not print {expected_output!r}", observation)
