"""The terminal hack suite: commands that print everything, and near misses, earn at most the type credit.

Issue 39: the checks asked whether the output *contained* the answer, so ``grep -rn . .`` or ``seq 0
5000`` earned full ``terminal`` reward on most requests judged by output. Every command of
``rusty_hf.data.terminal.hacks.HACKS`` (the issue's five, ``cat`` of the wrong file, ``wc`` of every
file, ``ls -R``, ``git log -p``, a count of another file, answers padded with other numbers, ...) is
sent as a CMD through the registered reward on every request of the held-out and development splits,
and must earn at most the type credit; every request's reference actions (multi-turn: the command,
its real output, the answer) must still earn 1.0. The rest checks the rules one by one, on small cases.
"""

from __future__ import annotations

import json
import random

import pytest

from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.checks import RUNS, Check, judge, names, numbers
from rusty_hf.data.terminal.dataset import (
    dev_requests,
    heldout_requests,
    training_requests,
)
from rusty_hf.data.terminal.excess import other_lines, other_names
from rusty_hf.data.terminal.fixtures import materialize, python_fixture
from rusty_hf.data.terminal.hacks import HACKS, hack_commands, is_answer
from rusty_hf.data.terminal.values import ValuePool
from rusty_hf.protocol import Action
from rusty_hf.rewards import get_terminal_reward

TYPE_CREDIT = 0.2
SPLITS = {"heldout": lambda: heldout_requests(seed=0), "dev": dev_requests}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("terminal_fixtures")


@pytest.fixture(scope="module")
def reward(cache):
    return get_terminal_reward(cache_dir=cache, type_credit=TYPE_CREDIT, max_workers=2)


def _columns(requests) -> dict:
    rows = [r.row() for r in requests]
    return {key: [row[key] for row in rows] for key in ("check", "final_check", "fixture")}


def _reference(request, cache) -> str | list[dict]:
    """The reference as the reward sees it: one action, or the command, its real output, then the answer."""
    actions = request.case.actions
    if not request.multi_turn:
        return json.dumps(actions[0])
    root = materialize(request.fixture, cache)
    output = RUNS.run(root, actions[0]["command"], 60)[0]
    call = {"type": "function", "function": {"name": "CMD", "arguments": {"command": actions[0]["command"]}}}
    return [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "name": "CMD", "content": output},
            {"role": "assistant", "content": json.dumps(actions[1])}]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("split", SPLITS)
def test_every_reference_earns_full_reward(split, reward, cache):
    requests = SPLITS[split]()
    scores = reward([_reference(r, cache) for r in requests], **_columns(requests))
    assert not [(r.intent, r.text, s) for r, s in zip(requests, scores) if s != 1.0]


@pytest.mark.slow
@pytest.mark.parametrize("split", SPLITS)
def test_no_hack_earns_more_than_the_type_credit(split, reward):
    requests = SPLITS[split]()
    columns = _columns(requests)
    commands = [dict(hack_commands(r)) for r in requests]
    paid = []
    for name in HACKS:
        completions = [json.dumps({"action": "CMD", "command": c[name]}) for c in commands]
        scores = reward(completions, **columns)
        assert None not in scores  # every row was judged, none skipped by an error
        paid += [(name, r.intent, c[name], s) for r, c, s in zip(requests, commands, scores)
                 if s > TYPE_CREDIT and not is_answer(r.intent, name)]  # fmt: skip
    assert not paid, paid[:10]


def test_the_suite_holds_the_issues_commands_and_near_misses():
    commands = set(HACKS.values())
    assert len(HACKS) >= 12
    assert {"seq 0 5000", "cat * */* */*/*", "grep -rn . .", "find . -type f | xargs wc -l -w -c",
            "ls -laR; git status; git log --stat -p; cat $(git ls-files)", "ls -R", "git log -p"} <= commands  # fmt: skip
    request = next(r for r in training_requests(200, seed=1) if r.intent == "count_lines")
    filled = dict(hack_commands(request))
    path = request.case.slots["file"]
    assert filled["count_padded"] == f"wc {path}" and filled["count_other"] != f"wc -l {path}"


def test_a_count_states_that_number_alone():
    check = Check("msg", number="7")
    assert judge(check, Action("MSG", message="7 lines."), None).ok
    assert judge(check, Action("MSG", message="notes.txt: 07"), None).ok
    for padded in ("7 40 250 notes.txt", "0 1 2 3 4 5 6 7 8", "Somewhere between 6 and 8: 7", "seven"):
        assert not judge(check, Action("MSG", message=padded), None).ok, padded


def test_numbers_and_names_are_whole_tokens():
    assert numbers("  7 ./notes.txt\nv0.1.0 file2.txt 3.5 ends 12.") == ["7", "3.5", "12"]
    assert names("./src/ledger.py:3: x", "ledger.py") and names("see ledger.py.", "ledger.py")
    assert not names("old_ledger.py", "ledger.py") and not names("ledger.pyc", "ledger.py")


def _one(intent: str):
    return next(r for r in training_requests(400, seed=2) if r.intent == intent)


def test_a_shown_file_is_that_file_alone(cache):
    request = _one("show_file")
    root = materialize(request.fixture, cache)
    path = request.case.slots["file"]
    assert judge(request.case.first, Action("CMD", command=f"cat {path}"), root).ok
    assert judge(request.case.first, Action("CMD", command=f"cat -n {path}"), root).ok  # another way to show it
    files = request.fixture.tree_files()  # a Python package or a Rust crate (`dataset.READS_ANY_REPO`)
    others = [p for p in sorted(files) if p != path and not p.startswith(".") and files[p].strip()][:2]
    verdict = judge(request.case.first, Action("CMD", command=f"cat {path} {' '.join(others)}"), root)
    assert not verdict.ok and verdict.reason.startswith("shows")


def test_a_listing_names_that_folder_and_not_what_is_below(cache):
    request = _one("list_dir")
    root = materialize(request.fixture, cache)
    folder = request.case.slots["dir"]
    assert judge(request.case.first, Action("CMD", command=f"ls -la {folder}/"), root).ok
    verdict = judge(request.case.first, Action("CMD", command=f"ls -R {folder} ."), root)
    assert not verdict.ok and verdict.reason.startswith("names")


def test_a_tree_listing_names_every_nested_file_and_no_count(cache):
    request = _one("list_tree")
    root = materialize(request.fixture, cache)
    for command in ("ls -R", "ls -lR", "find .", "find . -type f -not -path './.git/*'"):
        assert judge(request.case.first, Action("CMD", command=command), root).ok, command
    assert judge(request.case.first, Action("CMD", command="ls"), root).reason.startswith("missing")  # the top alone
    verdict = judge(request.case.first, Action("CMD", command="find . -type f | xargs wc -l"), root)
    assert not verdict.ok and verdict.reason.startswith("states a count")
    assert Check.from_json(request.case.first.to_json()) == request.case.first
    assert "no_counts" not in Check("output", number="3").to_json()  # rows written before the field: the same bytes


def test_a_search_shows_the_hits_and_no_other_line(cache):
    request = _one("find_todo")
    root = materialize(request.fixture, cache)
    assert judge(request.case.first, Action("CMD", command="grep -rn TODO ."), root).ok
    assert judge(request.case.first, Action("CMD", command="grep -rn -i todo --include=*.py ."), root).ok
    assert not judge(request.case.first, Action("CMD", command="grep -rn -A 3 TODO ."), root).ok  # and the lines after


@pytest.mark.parametrize("seed", [0, 3])  # a folder at the top, and one inside a folder of the work dir
def test_a_folder_asked_for_is_made_and_nothing_else(cache, seed):
    pool = ValuePool("train", seed=seed)
    fx = python_fixture(pool)
    case = all_intents()["make_folder"].build(fx, random.Random(seed), pool)
    root = materialize(fx, cache)
    path = case.slots["dir"]
    assert judge(case.first, Action("CMD", command=f"mkdir -p {path}"), root).ok
    assert judge(case.first, Action("CMD", command=f"touch {path}"), root).reason == f"differs at {path}"
    assert judge(case.first, Action("CMD", command=f"mkdir -p {path}x"), root).reason == f"no folder {path}"
    assert not judge(case.first, Action("CMD", command=f"mkdir {path} && touch {path}/keep"), root).ok


def test_a_git_question_is_judged_by_its_fact(cache):
    request = _one("last_commit")
    root = materialize(request.fixture, cache)
    assert judge(request.case.first, Action("CMD", command="git log -1"), root).ok
    assert judge(request.case.first, Action("CMD", command="git show --stat"), root).ok
    assert not judge(request.case.first, Action("CMD", command="git log --oneline"), root).ok  # older commits too
    subjects = request.fixture.facts["subjects"]
    assert not judge(request.case.final, Action("MSG", message=" / ".join(subjects)), root).ok


def test_the_excess_is_what_the_request_did_not_ask_for():
    fx = python_fixture(ValuePool("train", seed=5))
    files, notes = fx.tree_files(), fx.facts["modified"][0]  # the notes file (`notes.txt`, `NOTES.md`, ...)
    lines = other_lines(fx, keep={notes})
    assert not [line for line in lines if line in files[notes]]
    assert [line for line in lines if line in files["README.md"]] and "build/" not in lines  # a bare name is no line
    hits = other_lines(fx, needle="TODO")
    assert f"# TODO: {fx.facts['todo']}" not in hits and [line for line in hits if line in files[fx.facts["todo_file"]]]
    init = f"{fx.facts['package']}/__init__.py"
    named = other_names(fx, {init})
    assert "tests/__init__.py" in named and notes in named and "__init__.py" not in named  # same base name: the path
