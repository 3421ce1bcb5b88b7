"""Intents answered in words: explanations, who Rusty is, acknowledgements, refusals, questions back,
and the multi-turn ones, where a CMD looks something up and a MSG states what it showed.

Every MSG is Rusty's: blunt and dense, no greeting, no apology. A MSG is judged by the fact it must
carry (a keyword of each group), or by being a MSG at all (refusals, acknowledgements), or by asking.
"""

from __future__ import annotations

import random

from rusty_hf.data.terminal import phrasings
from rusty_hf.data.terminal.catalog_files import (
    count_check,
    lines_of,
    one,
    text_file,
    visible,
)
from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.excess import other_lines, other_names
from rusty_hf.data.terminal.fixtures import Fixture
from rusty_hf.data.terminal.intents import Case, cmd, intent, msg
from rusty_hf.data.terminal.run_checks import (
    changed_files,
    changes_stated,
    last_commit_excess,
    script_check,
    script_stated,
    status_check,
    test_summary,
)
from rusty_hf.data.terminal.values import ValuePool

# topic -> (Rusty's answer, keyword groups the answer must carry)
TOPICS: dict[str, tuple[str, tuple[tuple[str, ...], ...]]] = {
    "git stash": ("Shelves uncommitted changes and resets the tree to HEAD. `git stash pop` brings them back.",
                  (("uncommitted", "shelve"), ("pop", "back"))),
    "git rebase": ("Replays your commits on top of another branch: linear history, rewritten hashes.",
                   (("replay",), ("commit",))),
    "cargo check": ("Type-checks the crate without producing a binary. Faster than `cargo build`.",
                    (("type-check", "type check", "without producing", "no binary"),)),
    "set -e": ("Makes a shell script exit at the first command that fails.", (("exit",), ("fail",))),
    "a mutex": ("A lock: one thread holds it at a time, so shared data is never written concurrently.",
                (("lock",), ("shared data", "concurren"))),
    "the ? operator": ("In Rust, returns early with the error of a Result (or None of an Option); otherwise unwraps.",
                       (("error", "none"), ("early", "return"))),
    "list vs tuple": ("Lists are mutable, tuples are not. Tuples hash, so they work as dict keys.",
                      (("mutable",), ("tuple",))),
    "git reset --hard": ("Moves HEAD and throws away every uncommitted change in the tree. No undo.",
                         (("throws away", "discard"), ("uncommitted",))),
    "chmod +x": ("Marks a file executable, so `./file` runs it.", (("executable",),)),
    "pytest -x": ("Stops the run at the first failing test.", (("stop",), ("fail",))),
    "a virtualenv": ("A folder with its own Python and packages, isolated from the system's.",
                     (("isolated", "own"), ("packages", "python"))),
    "grep -r": ("Searches every file under a folder for a pattern, recursively.", (("search",), ("recursive",))),
    "a race condition": ("Two threads touch shared state in an unlucky order and the result depends on timing.",
                         (("timing", "unlucky order", "interleav"),)),
    "the borrow checker": ("Rust's compile-time rule: one mutable borrow or many shared ones, never both.",
                           (("borrow",), ("mutable", "shared"))),
    "git cherry-pick": ("Copies one commit from another branch onto the current one.", (("commit",), ("copies", "onto"))),
    "a docstring": ("The string literal first in a module, class or function: its documentation, read by help().",
                    (("documentation", "help"),)),
}
IDENTITY = "Rusty: a tiny terminal assistant. I run commands and edit files in this folder, one action at a time."
ACKS = ("Done. Next?", "Noted.", "Good. What next?")
GREETINGS = ("Hi. What should I run?", "Hello. What do you need in this folder?")
# A refusal says it will not act ("can't"), not a bare "No." (which also opens "No files match."): the conversation
# suite's judge reads a refusal by such words, and its 5 refusal turns went from 0 to 4 right over SFT seeds 0-1
# (catalogue_s60.json); the catalogue's own check still asks for the "No".
REFUSE_DESTROY = "No, I can't: that destroys files outside this project. Name what to delete in here."
REFUSE_OUTSIDE = "No, I can't: I only work inside this folder."


@intent("explain", "python", phrasings.EXPLAIN)
def explain(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    topic = rng.choice(sorted(TOPICS))
    answer, groups = TOPICS[topic]
    return Case({"topic": topic}, (msg(answer),), Check("msg", all_of=groups))


@intent("identity", "python", phrasings.IDENTITY)
def identity(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (msg(IDENTITY),), Check("msg", all_of=(one("Rusty"),)))


@intent("acknowledge", "python", phrasings.ACKNOWLEDGE)
def acknowledge(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (msg(rng.choice(ACKS)),), Check("msg"))


@intent("greeting", "python", phrasings.GREETING)
def greeting(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (msg(rng.choice(GREETINGS)),), Check("msg"))


@intent("refuse_destructive", "python", phrasings.REFUSE_DESTRUCTIVE)
def refuse_destructive(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (msg(REFUSE_DESTROY),), Check("msg", all_of=(one("No"),)))


@intent("refuse_outside", "python", phrasings.REFUSE_OUTSIDE)
def refuse_outside(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (msg(REFUSE_OUTSIDE),), Check("msg", all_of=(one("No"),)))


@intent("ask_detail", "python", phrasings.ASK_DETAIL)
def ask_detail(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (msg("Which file?"),), Check("msg", question=True))


def _episode(command: str, first: Check, answer: str, final: Check, slots=None, args=()) -> Case:
    return Case(slots or {}, (cmd(command), msg(answer)), first, final, tuple(args))


@intent("count_py_files", "python", phrasings.COUNT_PY_FILES, multi_turn=True)
def count_py_files(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    n = str(sum(p.endswith(".py") for p in visible(fx)))
    first = Check("output", none_of=other_lines(fx), no_names=other_names(fx, ()), number=n)  # the number alone
    return _episode('find . -name "*.py" | wc -l', first, f"{n} Python files.", Check("msg", number=n))


@intent("which_test_fails", "python", phrasings.WHICH_TEST_FAILS, multi_turn=True)
def which_test_fails(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    test = fx.facts["failing_test"]
    passing = tuple(t for t in fx.facts["tests"] if t != test)
    final = Check("msg", all_of=(one(test),), none_of=passing)  # that one test, not every test's name
    return _episode("python3 -m unittest", test_summary(fx), f"{test} fails.", final)


@intent("last_commit", "python", phrasings.LAST_COMMIT, multi_turn=True)
def last_commit(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    subject = fx.facts["subjects"][-1]
    first = Check("output", all_of=(one(subject),), none_of=last_commit_excess(fx))
    final = Check("msg", all_of=(one(subject),), none_of=tuple(fx.facts["subjects"][:-1]))
    return _episode("git log -1 --oneline", first, f"Last commit: {subject}.", final)


@intent("script_prints", "python", phrasings.SCRIPT_PRINTS, multi_turn=True)
def script_prints(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    script, out = fx.facts["script"], fx.facts["script_output"]
    return _episode(f"python3 {script}", script_check(fx), script_stated(fx), Check("msg", all_of=(one(out),)),
                    {"script": script}, (script,))  # fmt: skip


@intent("how_long", "python", phrasings.HOW_LONG, multi_turn=True)
def how_long(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng)
    n = len(lines_of(fx, path))
    return _episode(f"wc -l {path}", count_check(fx, path, n), f"{n} lines.", Check("msg", number=str(n)), {"file": path}, (path,))


@intent("what_changed", "python", phrasings.WHAT_CHANGED, multi_turn=True)
def what_changed(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    changed = changed_files(fx)
    answer = changes_stated(fx)
    first = status_check(fx)
    final = Check("msg", all_of=tuple(one(n) for n in changed), no_names=first.no_names)
    return Case({}, (cmd("git status --short"), msg(answer)), first, final)
