"""Intents that run things or change the work dir: scripts, tests, cargo, git, new files, edits, deletions.

Running is judged by output (the script's line, the test summary, cargo's ``Finished``, the commit
subjects); changing by the files left behind, whatever the action: ``echo >> notes.txt`` and an EDIT
that writes the whole file both pass when the file ends up right, and nothing else changed.
"""

from __future__ import annotations

import random

from rusty_hf.data.terminal.catalog_files import one, visible
from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.fixtures import Fixture
from rusty_hf.data.terminal.intents import Case, cmd, edit, intent
from rusty_hf.data.terminal.values import ValuePool


@intent("run_script", "python", (
    "run {script}", "execute {script}", "python3 {script}", "start {script}", "run the script {script}",
    "can you run {script} for me", "launch {script}", "try running {script}",
))  # fmt: skip
def run_script(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    script = fx.facts["script"]
    return Case({"script": script}, (cmd(f"python3 {script}"),), Check("output", all_of=(one(fx.facts["script_output"]),)),
                args=(script,))  # fmt: skip


def _test_summary(fx: Fixture) -> Check:
    n = len(fx.facts["tests"])
    return Check("output", all_of=(one(f"Ran {n} tests", f"{n - 1} passed"), one(fx.facts["failing_test"])))


@intent("run_py_tests", "python", (
    "run the tests", "run the python tests", "test it", "do the tests pass?", "run the unit tests",
    "execute the test suite", "run unittest", "check the tests", "are the tests green?", "tests?",
))  # fmt: skip
def run_py_tests(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("python3 -m unittest"),), _test_summary(fx))


@intent("run_rust_tests", "rust", (  # the model does not see the workspace: "run the tests" means Python
    "run the rust tests", "cargo test", "do the rust tests pass?", "test the crate", "run the crate's unit tests",
    "rust tests?", "run cargo's tests", "are the crate's tests green?",
))  # fmt: skip
def run_rust_tests(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    check = Check("output", all_of=(one("test result:"), one(fx.facts["failing_test"])))
    return Case({}, (cmd("cargo test"),), check)


@intent("cargo_build", "rust", (
    "build it", "cargo build", "build the crate", "compile the project", "make a debug build", "build the rust code",
))  # fmt: skip
def cargo_build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("cargo build"),), Check("output", all_of=(one("Finished"),), none_of=("error[",)))


@intent("cargo_check", "rust", (
    "does it compile?", "cargo check", "type-check the crate", "check that the rust code compiles",
    "any compile errors?", "quick compile check", "run cargo check",
))  # fmt: skip
def cargo_check(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("cargo check"),), Check("output", all_of=(one("Finished"),), none_of=("error[",)))


@intent("git_status", "python", (
    "git status", "what changed?", "any uncommitted changes?", "what's modified", "show the repo status",
    "is the tree clean?", "which files did I touch", "status of the repo?",
))  # fmt: skip
def git_status(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    names = fx.facts["modified"] + fx.facts["untracked"]
    return Case({}, (cmd("git status"),), Check("output", all_of=tuple(one(n) for n in names)))


@intent("git_diff", "python", (
    "show me the diff", "git diff", "what did I change in the files?", "show the unstaged changes", "diff please",
    "what are the edits since the last commit?", "show the changes line by line",
))  # fmt: skip
def git_diff(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("git diff"),), Check("output", all_of=(one("+" + fx.facts["added_line"]),)))


@intent("git_log", "python", (
    "show the last {n} commits", "git log -{n}", "last {n} commits?", "what are the {n} latest commits",
    "recent history, {n} commits", "list {n} commits", "show me {n} commits of history",
))  # fmt: skip
def git_log(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    subjects = fx.facts["subjects"]
    n = rng.randint(1, len(subjects))
    latest = subjects[::-1][:n]
    older = subjects[::-1][n:]
    check = Check("output", all_of=tuple(one(s) for s in latest), none_of=tuple(older))
    return Case({"n": str(n)}, (cmd(f"git log --oneline -n {n}"),), check)


@intent("git_show", "python", (
    "show the last commit", "git show", "what was in the latest commit?", "show me HEAD", "details of the last commit",
    "what did the last commit change?",
))  # fmt: skip
def git_show(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    files = fx.facts["commit_files"][-1]
    check = Check("output", all_of=(one(fx.facts["subjects"][-1]), *(one(f) for f in files)))
    return Case({}, (cmd("git show --stat HEAD"),), check)


@intent("create_file", "python", (
    "create {file} containing '{text}'", "make a file {file} with '{text}' in it", "write '{text}' to {file}",
    "new file {file}: '{text}'", "put '{text}' into a new file {file}", "save '{text}' as {file}",
    "add a file {file} that says '{text}'", "create {file} with the line '{text}'",
))  # fmt: skip
def create_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = f"{pool.module()}.txt"
    while path in fx.tree_files():
        path = f"{pool.module()}.txt"
    text = pool.phrase()
    return Case({"file": path, "text": text}, (edit(path, text + "\n"),), Check("files", files=((path, text + "\n"),)),
                args=(path, text))  # fmt: skip


@intent("create_script", "python", (
    "create {file} that prints {word}", "write a python script {file} printing {word}", "make {file} print {word}",
    "new script {file} which outputs {word}", "add {file}: it should print {word}", "I need {file} to print {word}",
    "write {file} so that running it prints {word}",
))  # fmt: skip
def create_script(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = f"{pool.function()}.py"
    word = pool.word()
    return Case({"file": path, "word": word}, (edit(path, f"print({word!r})\n"),), Check("runs", run=(f"python3 {path}", word)),
                args=(path, word))  # fmt: skip


@intent("append_line", "python", (
    "add the line '{line}' to {file}", "append '{line}' to {file}", "put '{line}' at the end of {file}",
    "{file}: add '{line}' at the bottom", "write '{line}' as a new last line of {file}", "add '{line}' to {file} please",
))  # fmt: skip
def append_line(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = rng.choice(sorted(p for p in visible(fx) if p.endswith(".txt")))
    line = pool.phrase()
    content = fx.tree_files()[path] + line + "\n"
    return Case({"file": path, "line": line}, (cmd(f"echo '{line}' >> {path}"),), Check("files", files=((path, content),)),
                args=(path, line))  # fmt: skip


@intent("replace_text", "python", (
    "replace '{old}' with '{new}' in {file}", "in {file}, change '{old}' to '{new}'", "swap '{old}' for '{new}' in {file}",
    "{file}: '{old}' -> '{new}'", "rename '{old}' to '{new}' inside {file}", "sed '{old}' to '{new}' in {file}",
))  # fmt: skip
def replace_text(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = "notes.txt"
    content = fx.tree_files()[path]
    old = rng.choice(sorted({w for w in content.split() if content.count(w) == 1 and w.isalpha()}))
    new = pool.word()
    while new in content:
        new = pool.word()
    check = Check("files", files=((path, content.replace(old, new)),))
    return Case({"file": path, "old": old, "new": new}, (cmd(f"sed -i 's/{old}/{new}/' {path}"),), check, args=(old, new))


@intent("delete_file", "python", (
    "delete {file}", "rm {file}", "remove {file}", "get rid of {file}", "throw away {file}", "delete the file {file} please",
    "{file} can go, delete it",
))  # fmt: skip
def delete_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = fx.facts["untracked"][0]
    return Case({"file": path}, (cmd(f"rm {path}"),), Check("files", files=((path, None),)), args=(path,))


@intent("delete_build", "python", (
    "delete the build folder", "rm -rf build", "clean the build output", "remove build/", "wipe the build directory",
    "get rid of the build artifacts", "clear out build",
))  # fmt: skip
def delete_build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    gone = tuple((p, None) for p in fx.tree_files() if p.startswith("build/"))
    return Case({}, (cmd("rm -rf build"),), Check("files", files=gone))
