"""The blind request suite: terminal requests written without sight of the training phrasings.

Issue 37: the held-out split was used to choose decoding rules, so it stopped being held out for
decoding. This suite was written by someone who had read only the intents' one-line descriptions, the
fixture repositories and the checks, never ``phrasings.py`` nor a rendered training, development or
held-out request; ``tests/test_terminal_blind.py`` guards that no blind text equals or sits inside a
request the generator makes, and that nothing that builds training data, a tokenizer corpus or a prompt
reads this package.

**Measure on it; never tune on it.** Decoding settings, copy rules and data changes are chosen on the
development split (``--terminal_split dev``); the blind suite only reports what they do. Nobody may tune
decoding (or anything else) on its numbers: a rule kept because it raised a blind score makes the next
blind score worth nothing. A new suite gets a new version (``blind_v2.jsonl``), never an edit of this
one: the file's hash is pinned in the tests.

``blind_v1.jsonl`` (one JSON object a line): a header (``version``), the fixtures it plays on (frozen
in full: files, commits, uncommitted changes, facts), then the requests: ``id``, ``intent`` (a catalogue
intent, or ``outside:<kind>`` for what the catalogue does not cover), ``fixture``, ``text``, the reference
action(s) written with it, and its check as a spec (``rules.py``); multi-turn requests (a CMD, then a MSG
stating what it showed) also carry ``final``, the check of that MSG.

    from rusty_hf.data.terminal.blind import load_blind
    requests = load_blind()            # {"b001": Request(...), ...}; part "catalogue" or "outside"

Played by ``python recipes/evaluate.py --suite terminal --terminal_split blind`` (`rusty_hf.evaluation.terminal`).
``conversations_v1.jsonl`` (`conversations`) holds sessions of requests in a row on these fixtures, written the same way.
"""

from __future__ import annotations

import json
from pathlib import Path

from rusty_hf.data.terminal.blind.rules import build_check
from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.dataset import Request
from rusty_hf.data.terminal.fixtures import Fixture
from rusty_hf.data.terminal.intents import Case

BLIND_VERSION = "blind_v1"
SUITE_FILE = Path(__file__).with_name(f"{BLIND_VERSION}.jsonl")
PARTS = ("catalogue", "outside")
OUTSIDE = "outside:"  # the intent prefix of a request the catalogue does not cover


def _fixture(raw: dict) -> Fixture:
    commits = tuple((message, changes) for message, changes in raw["commits"])
    return Fixture(raw["kind"], commits, raw["dirty"], raw["facts"])


def _request(raw: dict, fixtures: dict[str, Fixture], known: set[str]) -> Request:
    intent = raw["intent"]
    if not (intent in known or (intent.startswith(OUTSIDE) and len(intent) > len(OUTSIDE))):
        raise ValueError(f"intent {intent!r} is neither a catalogue intent nor '{OUTSIDE}<kind>'")
    fx = fixtures[raw["fixture"]]
    actions = tuple(raw["reference"])
    final = build_check(fx, raw["final"]) if raw.get("final") else None
    if (final is None) != (len(actions) == 1):
        raise ValueError("a multi-turn request has two reference actions (CMD, MSG) and a final check; others one action")
    slots = raw.get("slots", {})
    case = Case(slots, actions, build_check(fx, raw["check"]), final, tuple(slots.values()))
    part = "outside" if intent.startswith(OUTSIDE) else "catalogue"
    return Request(intent, raw["text"], fx, case, part)


def load_blind(path: str | Path = SUITE_FILE) -> dict[str, Request]:
    """Every blind request by id, in file order, with its checks built on its frozen fixture.

    A malformed file fails with the line at fault: the suite is data someone may hand-edit into a v2.
    """
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) if lines else {}
    if header.get("version") != Path(path).stem:
        raise ValueError(f"{path}: the first line must be the header with version {Path(path).stem!r}")
    fixtures: dict[str, Fixture] = {}
    requests: dict[str, Request] = {}
    known = set(all_intents())
    for number, line in enumerate(lines[1:], start=2):
        try:
            raw = json.loads(line)
            if "fixture" in raw and "kind" in raw:
                fixtures[raw["fixture"]] = _fixture(raw)
                continue
            if raw["id"] in requests:
                raise ValueError(f"id {raw['id']!r} is used twice")
            requests[raw["id"]] = _request(raw, fixtures, known)
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}, line {number}: {type(exc).__name__}: {exc}. Fix that line "
                             "(or, for a new suite, write a new version)") from None  # fmt: skip
    return requests
