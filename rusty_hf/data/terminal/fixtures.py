"""Fixture repositories for terminal requests: a small Python project or Rust crate with a git history.

A fixture is data (files, commits, the uncommitted changes on top, and the facts requests and
checks need: which file defines which function, which test fails, what a script prints), built
from a :class:`~rusty_hf.data.terminal.values.ValuePool` so every name in it belongs to one split.
:func:`materialize` writes it to a folder with a real ``.git`` (fixed author and dates, so the same
fixture always gets the same commit hashes); folders are cached by the fixture's key.

    from rusty_hf.data.terminal.fixtures import python_fixture, materialize
    fx = python_fixture(ValuePool("train", seed=3))
    root = materialize(fx, cache_dir)     # <cache_dir>/<fx.key>/ with .git
    fx.facts["failing_test"], fx.tree_files()
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rusty_hf.data.terminal.values import ValuePool
from rusty_hf.sandbox.workdir import parent_dirs

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Rusty Fixture", "GIT_AUTHOR_EMAIL": "fixture@rusty.invalid",
    "GIT_COMMITTER_NAME": "Rusty Fixture", "GIT_COMMITTER_EMAIL": "fixture@rusty.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip


@dataclass(frozen=True)
class Fixture:
    """One repository: ``commits`` in order (message, {path: content}), then ``dirty`` on top, uncommitted."""

    kind: str  # "python" or "rust"
    commits: tuple[tuple[str, dict[str, str]], ...]
    dirty: dict[str, str]
    facts: dict = field(default_factory=dict)

    @functools.cached_property
    def key(self) -> str:  # every row's output is looked up by it: computed once per fixture
        blob = json.dumps([self.kind, self.commits, self.dirty], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def tree_files(self) -> dict[str, str]:
        """The working tree: every commit applied, then the uncommitted changes."""
        files: dict[str, str] = {}
        for _, changes in self.commits:
            files.update(changes)
        files.update(self.dirty)
        return files


@dataclass(frozen=True)
class EvolvedFixture(Fixture):
    """A fixture after actions on its work dir: ``dirty`` holds what they wrote, ``removed`` what they deleted
    (the conversation suite's later turns, a training session after a write)."""

    removed: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        if not self.removed:
            return super().key
        blob = json.dumps([self.kind, self.commits, self.dirty, sorted(self.removed)], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def tree_files(self) -> dict[str, str]:
        return {path: text for path, text in super().tree_files().items() if path not in self.removed}


def _lines(pool: ValuePool, n: int) -> list[str]:
    return [pool.phrase() for _ in range(n)]


# Where a fixture's script lives: users' repositories keep one at the top as often as in a folder (a model that
# only saw scripts/ ran `python3 scripts/src/main.py` for "execute src/main.py")
SCRIPT_DIRS = ("scripts/", "scripts/", "", "tools/", "bin/")
# The notes file the user edits: `notes.txt` in every fixture taught the model to write notes.txt for "todo.txt"
NOTES_NAMES = ("notes.txt", "notes.txt", "notes.txt", "notes.txt", "NOTES.md", "notes.md", "todo.txt", "NOTES.txt")


def python_fixture(pool: ValuePool) -> Fixture:
    """A Python package with a unittest suite (one test fails), a script, data, notes and a build folder."""
    rng = pool.rng
    project, pkg = pool.module(), pool.folder()
    mod_a, mod_b = pool.distinct(pool.module, 2, avoid={pkg})
    fa, fb, fc = pool.distinct(pool.function, 3)
    cls, script, data, scratch = pool.class_name(), pool.script(), pool.noun(), pool.module()
    while script in {project, pkg, mod_a, mod_b}:  # a stem of its own: `report.py` beside a `report/` package reads as one
        script = pool.script()
    script_output, todo = pool.phrase(), pool.phrase()
    n_rows = rng.randint(3, 9)
    k = rng.randint(2, 5)
    tests = [f"test_{fa}_counts", f"test_{fa}_empty", f"test_{fb}_keeps_order"]
    failing = rng.choice(tests)
    script_dir = rng.choice(SCRIPT_DIRS)
    notes_file = rng.choice(NOTES_NAMES)
    expected = {tests[0]: "3", tests[1]: "0", tests[2]: "[1, 2, 3]"}
    wrong = {tests[0]: "4", tests[1]: "1", tests[2]: "[3, 2, 1]"}
    test_lines = [f"import unittest\n\nfrom {pkg}.{mod_a} import {fa}, {fb}\n\n\nclass {cls}Tests(unittest.TestCase):"]
    calls = {tests[0]: f"{fa}([1, 2, 3])", tests[1]: f"{fa}([])", tests[2]: f"{fb}([1, 2, 3])"}
    for name in tests:
        want = wrong[name] if name == failing else expected[name]
        test_lines.append(f"    def {name}(self):\n        self.assertEqual({calls[name]}, {want})\n")
    module_a_v1 = f'"""{mod_a.replace("_", " ")} helpers."""\n\n\ndef {fa}(items):\n    return len(items)\n'
    module_a = module_a_v1 + f"\n\n# TODO: {todo}\ndef {fb}(items):\n    return list(items)\n"
    module_b = (
        f'"""The {cls} type."""\n\n\nclass {cls}:\n    def __init__(self, name):\n        self.name = name\n\n'
        f"    def label(self):\n        return self.name.upper()\n\n\ndef {fc}(value, factor={k}):\n    return value * factor\n"
    )
    notes = _lines(pool, rng.randint(4, 9))
    files1 = {
        "README.md": f"# {project}\n\n{project.replace('_', ' ').capitalize()} keeps {pool.noun()} records.\n\n"
                     "Run the tests with `python3 -m unittest`.\n",
        ".gitignore": "build/\n__pycache__/\n",
        f"{pkg}/__init__.py": f'"""{project}."""\n',
        f"{pkg}/{mod_a}.py": module_a_v1,
        notes_file: "\n".join(notes) + "\n",
    }
    files2 = {f"{pkg}/{mod_a}.py": module_a, f"{pkg}/{mod_b}.py": module_b,
              f"tests/__init__.py": "", f"tests/test_{mod_a}.py": "\n".join(test_lines)}  # fmt: skip
    rows = [f"{i},{pool.noun()},{rng.randint(1, 99)}" for i in range(n_rows)]
    # the script prints its line, then the arguments it was given (none: the line alone), as scripts that take input do
    script_source = f"import sys\n\nprint({script_output!r}, *sys.argv[1:])\n"
    files3 = {f"{script_dir}{script}.py": script_source, f"data/{data}.csv": "id,name,qty\n" + "\n".join(rows) + "\n"}
    subjects = ["Initial commit", f"Add {fb} and {cls}", f"Add the {script} script"]
    extra = pool.phrase()
    dirty = {notes_file: files1[notes_file] + extra + "\n", f"{scratch}.txt": f"{pool.phrase()}\n",
             f"build/{pool.noun()}.log": "built\n"}  # fmt: skip
    facts = {
        "project": project, "package": pkg, "modules": {mod_a: f"{pkg}/{mod_a}.py", mod_b: f"{pkg}/{mod_b}.py"},
        "functions": {fa: f"{pkg}/{mod_a}.py", fb: f"{pkg}/{mod_a}.py", fc: f"{pkg}/{mod_b}.py"},
        "classes": {cls: f"{pkg}/{mod_b}.py"}, "tests": tests, "failing_test": failing,
        "test_file": f"tests/test_{mod_a}.py", "script": f"{script_dir}{script}.py", "script_output": script_output,
        "data_file": f"data/{data}.csv", "todo": todo, "todo_file": f"{pkg}/{mod_a}.py",
        "subjects": subjects, "commit_files": [sorted(files1), sorted(files2), sorted(files3)],
        "modified": [notes_file], "untracked": [f"{scratch}.txt"], "added_line": extra, "build_dir": "build",
    }  # fmt: skip
    return Fixture("python", ((subjects[0], files1), (subjects[1], files2), (subjects[2], files3)), dirty, facts)


def rust_fixture(pool: ValuePool) -> Fixture:
    """A library crate with a binary; its unit tests (one fails) run with ``cargo test``."""
    rng = pool.rng
    crate = pool.module()
    f1, f2 = pool.distinct(pool.function, 2)
    greeting = pool.phrase()
    tests = [f"{f1}_sums", f"{f1}_empty", f"{f2}_doubles"]
    failing = rng.choice(tests)
    checks = {tests[0]: (f"{f1}(&[1, 2, 3])", "6", "7"), tests[1]: (f"{f1}(&[])", "0", "1"),
              tests[2]: (f"{f2}(4)", "8", "9")}  # fmt: skip
    body = "\n".join(
        f"    #[test]\n    fn {name}() {{\n        assert_eq!({call}, {bad if name == failing else good});\n    }}\n"
        for name, (call, good, bad) in checks.items()
    )
    lib_v1 = f"/// Adds up the values.\npub fn {f1}(values: &[i64]) -> i64 {{\n    values.iter().sum()\n}}\n"
    lib = (lib_v1 + f"\n/// Twice the value.\npub fn {f2}(value: i64) -> i64 {{\n    value * 2\n}}\n\n"
           f"#[cfg(test)]\nmod tests {{\n    use super::*;\n\n{body}}}\n")  # fmt: skip
    files1 = {
        "Cargo.toml": f'[package]\nname = "{crate}"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
        ".gitignore": "/target\n",
        "src/lib.rs": lib_v1,
        "README.md": f"# {crate}\n\nA small crate. `cargo test` runs its tests.\n",
    }
    files2 = {"src/lib.rs": lib, "src/main.rs": f'fn main() {{\n    println!("{greeting}");\n}}\n'}
    subjects = ["Initial commit", f"Add {f2} and the binary"]
    notes = "\n".join(_lines(pool, rng.randint(3, 6))) + "\n"
    dirty = {"NOTES.md": notes}
    facts = {
        "crate": crate, "functions": {f1: "src/lib.rs", f2: "src/lib.rs"}, "tests": tests, "failing_test": failing,
        "binary_output": greeting, "subjects": subjects, "commit_files": [sorted(files1), sorted(files2)],
        "modified": [], "untracked": ["NOTES.md"],
    }  # fmt: skip
    return Fixture("rust", ((subjects[0], files1), (subjects[1], files2)), dirty, facts)


def listed_paths(paths) -> list[str]:
    """Files and their folders as a listing shows them: dotfiles and ``__pycache__`` left out."""
    files = [p for p in paths if not any(part.startswith(".") or part == "__pycache__" for part in p.split("/"))]
    folders = {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)}
    return sorted(set(files) | folders)


def workspace_paths(fixture: Fixture) -> list[str]:
    """The fixture's files and folders as a listing shows them (dotfiles left out)."""
    return listed_paths(fixture.tree_files())


def _git(root: Path, *args: str, stdin: bytes | None = None, when: int | None = None) -> None:
    """``git -C root ARGS``; ``when``: the time its reflog entries get (s since the epoch), not the clock's."""
    env = {**os.environ, **GIT_ENV, **({"GIT_COMMITTER_DATE": f"{when} +0000"} if when is not None else {})}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, input=stdin, env=env)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


_FIRST_COMMIT = 1767261600  # 2026-01-01T10:00:00+00:00


def _history(commits: tuple[tuple[str, dict[str, str]], ...]) -> bytes:
    """``commits`` as a `git fast-import` stream on ``main``: each a day apart from 2026-01-01 10:00 UTC, by the
    fixture author, its message as `git commit -m` stores it, so the hashes are those commits made one by one get."""
    def data(text: str) -> bytes:
        raw = text.encode("utf-8")
        return b"data %d\n%s\n" % (len(raw), raw)

    who = f"{GIT_ENV['GIT_AUTHOR_NAME']} <{GIT_ENV['GIT_AUTHOR_EMAIL']}>"
    stream = []
    for day, (message, changes) in enumerate(commits):
        when = f"{_FIRST_COMMIT + day * 86400} +0000"
        stream.append(f"commit refs/heads/main\nauthor {who} {when}\ncommitter {who} {when}\n".encode() + data(_as_committed(message)))
        stream += [f"M 100644 inline {name}\n".encode() + data(content) for name, content in sorted(changes.items())]
    return b"".join(stream)


def _as_committed(message: str) -> str:
    """``message`` as `git commit -m` stores it (its ``whitespace`` clean-up): each line without trailing whitespace,
    runs of blank lines as one, none at either end, a final newline."""
    lines: list[str] = []
    for line in message.split("\n"):
        line = line.rstrip(" \t\r\v\f")
        if line or (lines and lines[-1]):
            lines.append(line)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


# Bumped when what a cached fixture folder or a saved output holds changes, so a cache that older code filled is
# not mixed in (2: file times from the history, the sandbox's named uid, durations written as zero).
CACHE_VERSION = 2
_EDITED_AFTER_S = 3600  # the uncommitted changes: an hour after the last commit


def cached_fixture_dir(fixture: Fixture, cache_dir: str | os.PathLike) -> Path:
    """Where `materialize` keeps ``fixture`` in ``cache_dir`` (the saved outputs go beside it, `dataset.observation`)."""
    return Path(cache_dir) / f"{fixture.key}.{CACHE_VERSION}"


def file_times(fixture: Fixture) -> dict[str, int]:
    """Each file's and folder's modification time (s since the epoch) in a materialized fixture: a file's last
    commit (`_history`), the uncommitted changes an hour after the last one, a folder (and the fixture's own, ".")
    the latest of its entries, ``.git`` the last commit.
    Fixed, so `ls -l` prints the same on every build (and a "when was it last changed" answer is the history's)."""
    last = _FIRST_COMMIT + (len(fixture.commits) - 1) * 86400
    times: dict[str, int] = {}
    for day, (_, changes) in enumerate(fixture.commits):
        times.update(dict.fromkeys(changes, _FIRST_COMMIT + day * 86400))
    times.update(dict.fromkeys(fixture.dirty, last + _EDITED_AFTER_S))
    tree = fixture.tree_files()
    files = {path: when for path, when in times.items() if path in tree}
    folders = {d: max(when for path, when in files.items() if path.startswith(d + "/")) for d in parent_dirs(files)}
    return {**files, **folders, ".git": last, ".": max([last, *files.values()])}


def materialize(fixture: Fixture, cache_dir: str | os.PathLike) -> Path:
    """The fixture as a folder with its git history, at `cached_fixture_dir` (built once, then reused).

    Built in a temporary folder and renamed into place, so a reader never sees half a fixture. Three git
    processes: `init` (no sample hooks), `fast-import` (the commits, written as one pack) and `read-tree` (the
    work tree and index of the last commit); then the uncommitted changes, and the times of `file_times`. Commit
    hashes, `git log`, `status` and `diff` are those of a plain ``git init`` and one `git commit -m` per commit;
    only the reflog differs (one entry).
    """
    target = cached_fixture_dir(fixture, cache_dir)
    if (target / ".git").is_dir():
        return target
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{fixture.key}-", dir=cache_dir))
    try:
        _git(work, "-c", "init.defaultBranch=main", "init", "-q", "--template=")
        # One pack, not a folder per object (fast-import unpacks under 100 objects by default): every check
        # copies the fixture, .git included, and the copy's cost is its folder count.
        times = file_times(fixture)
        _git(work, "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet", "--done", stdin=_history(fixture.commits) + b"done\n",
             when=times[".git"])  # its reflog entry: the last commit's time
        _git(work, "read-tree", "--reset", "-u", "main")
        _write(work, fixture.dirty)
        for path in getattr(fixture, "removed", ()):
            (work / path).unlink()
        for path, when in sorted(times.items(), key=lambda item: (item[0] == ".", -item[0].count("/"))):
            os.utime(work / path, (when, when))
        os.rename(work, target)
    except OSError:
        shutil.rmtree(work, ignore_errors=True)
        if not (target / ".git").is_dir():  # another process may have won the rename
            raise
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return target


def copy_fixture(root: Path, dest: str | os.PathLike) -> Path:
    """A fresh copy of a materialized fixture (with ``.git``) for one check to write into (a read needs none:
    `checks.RUNS` runs it as a `Workspace.trial` on the fixture itself)."""
    return Path(shutil.copytree(root, dest, symlinks=True))
