"""Intents that run things or change the work dir: scripts, tests, cargo, git, new files, edits, deletions.

Running is judged by output (the script's line, the test summary, cargo's ``Finished``, the commit
subjects, with nothing else of the work dir beside it: no file the run does not read, no older commit,
``excess.py``); changing by the files left behind, whatever the action: ``echo >> notes.txt`` and an EDIT
that writes the whole file both pass when the file ends up right, and nothing else changed.
"""

from __future__ import annotations

import random

from rusty_hf.data.terminal import phrasings
from rusty_hf.data.terminal.catalog_files import folders, one, text_file, visible
from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.excess import other_lines, other_names
from rusty_hf.data.terminal.fixtures import GIT_ENV, Fixture, workspace_paths
from rusty_hf.data.terminal.intents import Case, cmd, edit, intent
from rusty_hf.data.terminal.run_checks import (
    changes_stated,
    committed,
    last_commit_excess,
    script_check,
    script_stated,
    status_check,
    test_summary,
)
from rusty_hf.data.terminal.values import ValuePool


@intent("run_script", "python", phrasings.RUN_SCRIPT)
def run_script(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    script = fx.facts["script"]  # closed as `script_prints` closes the same run
    return Case({"script": script}, (cmd(f"python3 {script}"),), script_check(fx), args=(script,), closing=script_stated(fx))


@intent("run_script_args", "python", phrasings.RUN_SCRIPT_ARGS)
def run_script_args(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    """The fixture's script run with one or two arguments (`python3 SCRIPT A B`): a word, a number or the data
    file. The script prints its line and then its arguments, so the output shows whether each was passed, in order."""
    script = fx.facts["script"]
    kinds = (pool.word, lambda: str(pool.number()), lambda: fx.facts["data_file"])
    args = tuple(kind() for kind in rng.sample(kinds, rng.choice((1, 1, 2))))
    joined = " ".join(args)
    return Case({"script": script, "args": joined}, (cmd(f"python3 {script} {joined}"),), script_check(fx, args),
                args=(script, *args), closing=script_stated(fx, args))  # fmt: skip


def _cargo(fx: Fixture, *groups: tuple[str, ...], none_of: tuple[str, ...] = ()) -> Check:
    """Cargo's output: the crate's sources may show (a warning, a failed assertion), no other file."""
    sources = {p for p in fx.tree_files() if p.startswith("src/")}
    return Check("output", all_of=groups, none_of=(*none_of, *other_lines(fx, keep=sources)))


@intent("run_py_tests", "python", phrasings.RUN_PY_TESTS)
def run_py_tests(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    tests, failing = fx.facts["tests"], fx.facts["failing_test"]
    return Case({}, (cmd("python3 -m unittest"),), test_summary(fx), closing=f"Ran {len(tests)} tests: {failing} fails.")


@intent("run_rust_tests", "rust", phrasings.RUN_RUST_TESTS)
def run_rust_tests(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("cargo test"),), _cargo(fx, one("test result:"), one(fx.facts["failing_test"])))


@intent("cargo_build", "rust", phrasings.CARGO_BUILD)
def cargo_build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("cargo build"),), _cargo(fx, one("Finished"), none_of=("error[",)))


@intent("cargo_check", "rust", phrasings.CARGO_CHECK)
def cargo_check(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("cargo check"),), _cargo(fx, one("Finished"), none_of=("error[",)))


@intent("git_status", "python", phrasings.GIT_STATUS)
def git_status(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    return Case({}, (cmd("git status"),), status_check(fx), closing=f"On branch main. {changes_stated(fx)}")


@intent("git_diff", "python", phrasings.GIT_DIFF)
def git_diff(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    modified = fx.facts["modified"]
    added = fx.facts["added_lines"] if "added_lines" in fx.facts else [fx.facts["added_line"]]  # a session's work dir: more
    check = Check("output", all_of=tuple(one("+" + line) for line in added), none_of=other_lines(fx, keep=set(modified)),
                  no_names=other_names(fx, modified, among=committed(fx)))  # fmt: skip
    gained = f"a line: {added[0]}" if len(added) == 1 else f"lines: {', '.join(added)}"  # no count: the diff shows none
    return Case({}, (cmd("git diff"),), check, closing=f"{', '.join(modified)} gained {gained}.")  # a phrase: no end mark


@intent("git_log", "python", phrasings.GIT_LOG)
def git_log(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    subjects = fx.facts["subjects"]
    n = rng.randint(1, len(subjects))
    latest = subjects[::-1][:n]
    older = subjects[::-1][n:]
    check = Check("output", all_of=tuple(one(s) for s in latest), none_of=(*older, *other_lines(fx)))  # no patch either
    return Case({"n": str(n)}, (cmd(f"git log --oneline -n {n}"),), check)


@intent("git_show", "python", phrasings.GIT_SHOW)
def git_show(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    files = fx.facts["commit_files"][-1]
    check = Check("output", all_of=(one(fx.facts["subjects"][-1]), *(one(f) for f in files)), none_of=last_commit_excess(fx))
    closing = f"It changed {', '.join(files)}."  # the files (its subject is `last_commit`'s answer)
    return Case({}, (cmd("git show --stat HEAD"),), check, closing=closing)


@intent("current_branch", "python", phrasings.CURRENT_BRANCH)
def current_branch(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    check = Check("output", all_of=(one("main"),), none_of=other_lines(fx), no_names=other_names(fx, ()))
    return Case({}, (cmd("git branch --show-current"),), check)


@intent("commit_count", "python", phrasings.COMMIT_COUNT)
def commit_count(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    n = str(len(fx.facts["subjects"]))
    # no file named either: `wc -l` of a three-line file states a 3 too
    check = Check("output", all_of=(one(n),), none_of=(*fx.facts["subjects"], *other_lines(fx)), no_names=other_names(fx, ()),
                  number=n)  # fmt: skip
    return Case({}, (cmd("git rev-list --count HEAD"),), check)


# The text files an edit, an append or a copy draws from (empty ones too): the notes, the README, a scratch file (an
# argument that was always ``notes.txt`` taught the model to edit notes.txt whatever the request named)
NOTE_EXTS = (".txt", ".md")


def _new_txt(fx: Fixture, pool: ValuePool, ext: str = ".txt", folder: str = "") -> str:
    """A text file the work dir does not hold yet (in ``folder``)."""
    path = f"{folder}{pool.module()}{ext}"
    while path in fx.tree_files():
        path = f"{folder}{pool.module()}{ext}"
    return path


def _copy_pair(fx: Fixture, rng: random.Random, pool: ValuePool) -> tuple[str, str]:
    """A file to copy or move (text, data or a script) and a new name beside it with its extension."""
    path = text_file(fx, rng, 0, (*NOTE_EXTS, ".csv", ".py") if rng.random() < 0.4 else (".txt",))
    folder, _, name = path.rpartition("/")
    return path, _new_txt(fx, pool, "." + name.rsplit(".", 1)[1], folder + "/" if folder else "")


@intent("copy_file", "python", phrasings.COPY_FILE)
def copy_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path, dest = _copy_pair(fx, rng, pool)
    check = Check("files", files=((dest, fx.tree_files()[path]),))
    return Case({"file": path, "dest": dest}, (cmd(f"cp {path} {dest}"),), check, args=(path, dest))


@intent("rename_file", "python", phrasings.RENAME_FILE)
def rename_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path, dest = _copy_pair(fx, rng, pool)
    check = Check("files", files=((path, None), (dest, fx.tree_files()[path])))
    return Case({"file": path, "dest": dest}, (cmd(f"mv {path} {dest}"),), check, args=(path, dest))


@intent("create_file", "python", phrasings.CREATE_FILE)
def create_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    # at the top, in a folder the work dir has, or in a new one (an EDIT makes it): a new file always at the top
    # taught the model to drop the folder a request names
    roll, existing = rng.random(), [f for f in folders(fx) if f != "build"]
    folder = "" if roll < 0.6 else rng.choice(existing) + "/" if roll < 0.85 else pool.folder() + "/"
    path = _new_txt(fx, pool, rng.choice((".txt", ".txt", ".md", ".log")), folder)  # text, whatever the extension
    text = pool.line()
    return Case({"file": path, "text": text}, (edit(path, text + "\n"),), Check("files", files=((path, text + "\n"),)),
                args=(path, text))  # fmt: skip


@intent("create_script", "python", phrasings.CREATE_SCRIPT)
def create_script(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = f"{pool.script()}.py"
    # one word or a line of several (its own stream: the other draws stay what they were): on 101 single words the
    # model printed a word it remembered ('sandy') for 5 of 6 dev requests, and a line of two words was never asked
    text = pool.word() if pool.rng.random() < 0.5 else pool.line()
    return Case({"file": path, "word": text}, (edit(path, f"print({text!r})\n"),), Check("runs", run=(f"python3 {path}", text)),
                args=(path, text))  # fmt: skip


@intent("make_folder", "python", phrasings.MAKE_FOLDER)
def make_folder(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    """A new folder, at the top or inside one the work dir has: that folder, and no file changed."""
    taken = set(workspace_paths(fx))
    folders = taken - set(fx.tree_files())
    inside = rng.choice(sorted(folders - {"build"})) + "/" if rng.random() < 0.3 else ""
    path = inside + pool.folder()
    while path in taken:
        path = inside + pool.folder()
    return Case({"dir": path}, (cmd(f"mkdir {path}"),), Check("files", dirs=(path,)), args=(path,))


@intent("append_line", "python", phrasings.APPEND_LINE)
def append_line(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng, 0, NOTE_EXTS)
    line = pool.line()
    content = fx.tree_files()[path] + line + "\n"
    return Case({"file": path, "line": line}, (cmd(f"echo '{line}' >> {path}"),), Check("files", files=((path, content),)),
                args=(path, line))  # fmt: skip


@intent("replace_text", "python", phrasings.REPLACE_TEXT)
def replace_text(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    def words(path: str) -> list[str]:  # a word the file holds once, whole (sed replaces its first match)
        content = fx.tree_files()[path]
        return sorted({w for w in content.split() if content.count(w) == 1 and w.isalpha()})

    # the notes most often, and any text file the work dir has: `sed` on notes.txt alone was read as "replace -> notes.txt"
    path = text_file(fx, rng, 0, NOTE_EXTS) if rng.random() < 0.5 else fx.facts["modified"][0]
    while not words(path):
        path = text_file(fx, rng, 0, NOTE_EXTS)
    content = fx.tree_files()[path]
    old = rng.choice(words(path))
    new = pool.word()
    while new in content:
        new = pool.word()
    check = Check("files", files=((path, content.replace(old, new)),))
    return Case({"file": path, "old": old, "new": new}, (cmd(f"sed -i 's/{old}/{new}/' {path}"),), check, args=(old, new))


@intent("delete_file", "python", phrasings.DELETE_FILE)
def delete_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    # the untracked scratch file most often, and any other file of the work dir (not the build folder's)
    others = sorted(p for p in visible(fx) if not p.startswith("build/") and not p.endswith("__init__.py"))
    path = fx.facts["untracked"][0] if rng.random() < 0.5 else rng.choice(others)
    return Case({"file": path}, (cmd(f"rm {path}"),), Check("files", files=((path, None),)), args=(path,))


@intent("delete_build", "python", phrasings.DELETE_BUILD)
def delete_build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    gone = tuple((p, None) for p in fx.tree_files() if p.startswith("build/"))
    return Case({}, (cmd("rm -rf build"),), Check("files", files=gone))


@intent("empty_file", "python", phrasings.EMPTY_FILE)
def empty_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = _new_txt(fx, pool)
    return Case({"file": path}, (cmd(f"touch {path}"),), Check("files", files=((path, ""),)), args=(path,))


@intent("python_version", "python", phrasings.PYTHON_VERSION)
def python_version(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    check = Check("output", all_of=(one("Python 3"),), none_of=other_lines(fx), no_names=other_names(fx, ()))
    return Case({}, (cmd("python3 --version"),), check)


def _committed(fx: Fixture) -> list[str]:
    """The visible files some commit holds (git knows their history)."""
    return sorted(committed(fx) & set(visible(fx)))


@intent("git_log_file", "python", phrasings.GIT_LOG_FILE)
def git_log_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    # a file a middle commit touched: for one only the first or the last commit touched, `git log -1` or
    # `git log | tail -1` would answer by position
    middle = {p for _, changes in fx.commits[1:-1] for p in changes}
    path = rng.choice([p for p in _committed(fx) if p in middle] or _committed(fx))
    touching = [subject for subject, changes in fx.commits if path in changes]
    others = [subject for subject, changes in fx.commits if path not in changes]
    check = Check("output", all_of=tuple(one(s) for s in touching), none_of=(*others, *other_lines(fx)))
    return Case({"file": path}, (cmd(f"git log --oneline -- {path}"),), check, args=(path,))


@intent("file_author", "python", phrasings.FILE_AUTHOR)
def file_author(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = rng.choice(_committed(fx))
    check = Check("output", all_of=(one(GIT_ENV["GIT_AUTHOR_NAME"]),), none_of=other_lines(fx, keep={path}),
                  no_names=other_names(fx, {path}))  # fmt: skip
    return Case({"file": path}, (cmd(f"git log --format=%an -- {path}"),), check, args=(path,))


@intent("git_branches", "python", phrasings.GIT_BRANCHES)
def git_branches(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    check = Check("output", all_of=(one("main"),), none_of=other_lines(fx), no_names=other_names(fx, ()))
    return Case({}, (cmd("git branch"),), check)


@intent("cargo_run", "rust", phrasings.CARGO_RUN)
def cargo_run(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    # the program's output, not its source (`cat src/main.rs` holds the text too)
    return Case({}, (cmd("cargo run"),), _cargo(fx, one(fx.facts["binary_output"]), none_of=("println!",)))
