"""The conversation suite: sessions of 5-8 requests in a row on one repository, written blind.

Issue 37 item 5: a user types several requests into ``rusty-terminal`` one after another, and later requests
went worse than the first. Each session here plays on one of the blind suite's frozen fixtures
(``blind_v1.jsonl``); each turn is a request with a reference answer (actions ending with a closing MSG), a
check of its first action and, after a command or an edit, a check of the closing message
(`rules.py`'s specs). Written like ``blind_v1.jsonl``: from the intents' one-line descriptions and the
fixtures, never the training phrasings. **Measure on it; never tune on it.** A new suite is a new version.

The turns share one work dir, so a turn's checks are built on the repository as the earlier turns' reference
actions leave it: each earlier CMD and EDIT is run on a copy of the fixture, and the check's expected lines,
counts and walls come from that state (:func:`expected_roots` keeps those folders for playing a turn alone).

    from rusty_hf.data.terminal.blind.conversations import load_conversations
    sessions = load_conversations(cache_dir)        # {"c01": Session(...), ...}
    sessions["c01"].turns[2].check, sessions["c01"].turns[2].final

Played by ``python recipes/evaluate.py --suite terminal --terminal_split conversations``
(`rusty_hf.evaluation.conversations`).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from rusty_hf.agent.workspace import Workspace
from rusty_hf.data.terminal.blind import OUTSIDE, SUITE_FILE, _fixture
from rusty_hf.data.terminal.blind.rules import build_check
from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.checks import COMMAND_TIMEOUT_S, Check, fixture_files
from rusty_hf.data.terminal.fixtures import EvolvedFixture, Fixture, copy_fixture, materialize
from rusty_hf.protocol import Action, parse_action

CONVERSATIONS_VERSION = "conversations_v1"
CONVERSATIONS_FILE = Path(__file__).with_name(f"{CONVERSATIONS_VERSION}.jsonl")
GENERATED = ("__pycache__", ".pyc", "target/")  # what running tests or cargo leaves behind: not the repository's files


@dataclass(frozen=True)
class Turn:
    text: str
    intent: str  # a catalogue intent, or "outside:<kind>"
    reference: tuple[dict, ...]  # a right answer: actions ending with the closing MSG
    check: Check  # the first action
    final: Check | None  # the closing MSG after a CMD or EDIT (None: the turn is one MSG, judged by `check`)

    @property
    def part(self) -> str:
        return "outside" if self.intent.startswith(OUTSIDE) else "catalogue"


@dataclass(frozen=True)
class Session:
    id: str
    turns: tuple[Turn, ...]
    states: tuple[tuple[Fixture, Path], ...]  # before each turn: the fixture and its folder (`expected_roots`)


def _action(raw: dict) -> Action:
    return parse_action(json.dumps(raw))


def apply_action(action: Action, root: Path, dest: Path, *, timeout: float = COMMAND_TIMEOUT_S) -> tuple[str, Path]:
    """``action`` (a CMD or EDIT) run on a copy of ``root`` at ``dest``: (what the session shows, the new root).

    Every state of a session is its own folder: the checks cache a command's result per (folder, command)."""
    if dest.exists():
        shutil.rmtree(dest)
    ws = Workspace(copy_fixture(root, dest), timeout=timeout)
    try:
        if action.action == "CMD":
            return ws.run(action.command).describe(1200), dest
        ws.write_file(action.path, action.content)
        return f"wrote {action.path} ({len(action.content)} chars)", dest
    except (ValueError, OSError) as exc:  # a refused command or path, as the session would show it
        return f"[not run: {exc}]", dest


def _repository_files(root: Path) -> dict[str, str]:
    files = fixture_files(root)
    return {path: data.decode("utf-8", "replace") for path, data in files.items()
            if not any(mark in path for mark in GENERATED)}  # fmt: skip


def _evolved(start: Fixture, root: Path) -> Fixture:
    tree = start.tree_files()
    now = _repository_files(root)
    changed = {path: text for path, text in now.items() if tree.get(path) != text}
    if not changed and len(now) == len(tree):
        return start
    return EvolvedFixture(start.kind, start.commits, {**start.dirty, **changed}, start.facts,
                          removed=frozenset(set(tree) - set(now)))  # fmt: skip


def expected_roots(session_id: str, start: Fixture, references: list[tuple[dict, ...]], cache_dir: str | os.PathLike
                   ) -> list[tuple[Fixture, Path]]:  # fmt: skip
    """(fixture, folder) before each turn, as the earlier turns' reference actions leave the repository."""
    root = materialize(start, cache_dir)
    base = Path(cache_dir) / "conversations" / f"{session_id}-{start.key}"
    states, fixture = [], start
    digest = hashlib.sha256()
    for k, reference in enumerate(references):
        states.append((fixture, root))
        for j, raw in enumerate(raw for raw in reference if raw["action"] != "MSG"):
            digest.update(json.dumps(raw, sort_keys=True).encode())
            dest = base / f"t{k}-{j}-{digest.hexdigest()[:12]}"
            if not (dest / ".git").is_dir():  # built once; a process that loses the race to build it uses the winner's
                base.mkdir(parents=True, exist_ok=True)
                tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=base))
                try:
                    _, built = apply_action(_action(raw), root, tmp / "w")
                    os.replace(built, dest)
                except OSError:
                    if not (dest / ".git").is_dir():
                        raise
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            root = dest
        fixture = _evolved(start, root)
    return states


def load_conversations(cache_dir: str | os.PathLike, path: Path = CONVERSATIONS_FILE) -> dict[str, Session]:
    """Every session of the suite at ``path`` (this suite, or the readable development sessions of
    ``rusty_hf.data.terminal.dev``), its turns' checks built on the states the reference actions reach. A file
    names its version in its header (the file's own name) and plays on the fixtures it holds, or, holding
    none, on the blind suite's.

    ``cache_dir`` holds the materialized fixtures and the reference states (built once, then reused)."""
    lines = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    header, rows = lines[0], lines[1:]
    if header.get("version") != Path(path).stem:
        raise ValueError(f"{path}: expected version {Path(path).stem!r}, got {header.get('version')!r}")
    raw_sessions = [raw for raw in rows if "turns" in raw]
    fixture_rows = [raw for raw in rows if "kind" in raw] or [
        json.loads(line) for line in SUITE_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    fixtures = {raw["fixture"]: _fixture(raw) for raw in fixture_rows if "kind" in raw}
    known = set(all_intents())
    sessions: dict[str, Session] = {}
    for raw in raw_sessions:
        start = fixtures[raw["fixture"]]
        references = []
        for turn in raw["turns"]:
            intent = turn["intent"]
            if not (intent in known or (intent.startswith(OUTSIDE) and len(intent) > len(OUTSIDE))):
                raise ValueError(f"{raw['id']}: intent {intent!r} is neither a catalogue intent nor '{OUTSIDE}<kind>'")
            reference = tuple(turn["reference"])
            if not reference or reference[-1]["action"] != "MSG":
                raise ValueError(f"{raw['id']}: {turn['text']!r}: the reference must end with the closing MSG")
            if (len(reference) > 1) != ("final" in turn):
                raise ValueError(f"{raw['id']}: {turn['text']!r}: a turn that acts has a final check, a MSG-only turn none")
            references.append(reference)
        states = expected_roots(raw["id"], start, references, cache_dir)
        turns = tuple(
            Turn(turn["text"], turn["intent"], tuple(turn["reference"]), build_check(fx, turn["check"]),
                 build_check(fx, turn["final"]) if turn.get("final") else None)
            for turn, (fx, _) in zip(raw["turns"], states)
        )  # fmt: skip
        sessions[raw["id"]] = Session(raw["id"], turns, tuple(states))
    return sessions


__all__ = ["CONVERSATIONS_FILE", "CONVERSATIONS_VERSION", "EvolvedFixture", "Session", "Turn", "apply_action",
           "expected_roots", "load_conversations"]
