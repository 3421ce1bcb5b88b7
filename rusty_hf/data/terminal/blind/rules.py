"""The blind suite's checks: a small JSON spec per request, built into a :class:`Check` on its fixture.

A blind request stores what a right answer achieves as a spec (``{"rule": "count", "files": ["notes.txt"],
"measure": "words"}``), not the check itself: the expected values and the walls around them (``excess.py``:
the lines of files not asked about, the names of other files, older commits) are drawn from the
request's frozen fixture here, with the helpers the catalogue's builders use, so a blind answer is judged
by the same rules as a training or held-out one, by executing it (never by matching its command).

    check = build_check(fixture, {"rule": "lines", "file": "notes.txt", "last": 2})

Rules (the keys each reads):

- ``listing`` (dir: "" for the root), ``recursive``: the names a listing shows, no file content;
  ``details`` (file): ``ls -l``'s name, size and mode;
- ``show`` (files), ``lines`` (file and first / last / line, 1-based): those lines, no other;
- ``count`` (files, measure: lines / words / bytes): the number(s) and no other file;
- ``search`` (text), ``grep_file`` (file, and text or a regular expression ``pattern``), ``todo``,
  ``definition`` (symbol, file), ``find`` (name / ext / paths), ``py_count``: as the catalogue's;
- ``py_tests``, ``cargo_tests``, ``cargo_ok``, ``script``, ``binary``, ``status``, ``diff``, ``log`` (n),
  ``show_commit``, ``last_commit``: running things and git, as the catalogue's;
- ``output``: explicit all_of / none_of / number, with walls on request (keep_lines, names_shown,
  older_commits, all_commits);
- ``files`` (write, append, replace, delete): the work dir afterwards; ``runs`` (command, prints);
- ``msg`` (all_of, none_of, no_names, number, question): a MSG.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from rusty_hf.data.terminal.catalog_files import (
    children,
    count_check,
    found_check,
    one,
    search_check,
    visible,
)
from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.excess import other_lines, other_names
from rusty_hf.data.terminal.fixtures import Fixture
from rusty_hf.data.terminal.run_checks import (
    committed,
    last_commit_excess,
    script_check,
    status_check,
    test_summary,
)

MEASURES: dict[str, Callable[[str], int]] = {
    "lines": lambda text: text.count("\n"),
    "words": lambda text: len(text.split()),
    "bytes": lambda text: len(text.encode()),
}


def _groups(raw) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(group) for group in raw or ())


def _listing(fx: Fixture, spec: dict) -> Check:
    folder = spec.get("dir", "")
    names = children(fx, folder)
    shown = [f"{folder}/{n}" for n in names] if folder else names
    return Check("output", all_of=tuple(one(n) for n in names), none_of=other_lines(fx), no_names=other_names(fx, shown))


def _recursive(fx: Fixture, spec: dict) -> Check:
    paths = visible(fx)
    names = sorted({part for p in paths for part in p.split("/")})
    return Check("output", all_of=tuple(one(n) for n in names), none_of=other_lines(fx))


def _details(fx: Fixture, spec: dict) -> Check:
    path = spec["file"]
    size = str(len(fx.tree_files()[path].encode()))
    return Check("output", all_of=(one(path), one(size), one("rw-", "rwx")), none_of=other_lines(fx),
                 no_names=other_names(fx, {path}))  # fmt: skip


def _show(fx: Fixture, spec: dict) -> Check:
    files = spec["files"]
    lines = [line for path in files for line in fx.tree_files()[path].splitlines() if line.strip()]
    return Check("output", all_of=tuple(one(line) for line in lines), none_of=other_lines(fx, keep=set(files)))


def _shown_hidden(lines: list[str], shown: list[str]) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """all_of for ``shown`` and the other lines of the file as none_of (those inside a shown one excepted)."""
    hidden = [h for h in lines if h not in shown and h.strip() and all(h not in s for s in shown)]
    return tuple(one(s) for s in shown if s.strip()), tuple(hidden)


def _lines(fx: Fixture, spec: dict) -> Check:
    path = spec["file"]
    lines = fx.tree_files()[path].splitlines()
    if "first" in spec:
        shown = lines[: spec["first"]]
    elif "last" in spec:
        shown = lines[-spec["last"] :]
    else:
        shown = [lines[spec["line"] - 1]]
    all_of, hidden = _shown_hidden(lines, shown)
    return Check("output", all_of=all_of, none_of=(*hidden, *other_lines(fx, keep={path})))


def _count(fx: Fixture, spec: dict) -> Check:
    files, measure = spec["files"], MEASURES[spec["measure"]]
    counts = [str(measure(fx.tree_files()[path])) for path in files]
    if len(files) == 1:
        return count_check(fx, files[0], int(counts[0]))
    return Check("output", all_of=(*(one(n) for n in counts), *(one(p) for p in files)),
                 none_of=other_lines(fx, keep=set(files)), no_names=other_names(fx, set(files)))  # fmt: skip


def _grep_file(fx: Fixture, spec: dict) -> Check:
    """Lines of one file holding a text (or matching ``pattern``): those lines, none other of any file."""
    path = spec["file"]
    lines = fx.tree_files()[path].splitlines()
    hit = (lambda line: re.search(spec["pattern"], line)) if "pattern" in spec else (lambda line: spec["text"] in line)
    all_of, hidden = _shown_hidden(lines, [line for line in lines if hit(line)])
    return Check("output", all_of=all_of, none_of=(*hidden, *other_lines(fx, keep={path})))


def _find(fx: Fixture, spec: dict) -> Check:
    if "paths" in spec:
        matches = spec["paths"]
    elif "name" in spec:
        matches = [p for p in visible(fx) if PurePosixPath(p).name == spec["name"]]
    else:
        matches = [p for p in visible(fx) if p.endswith("." + spec["ext"])]
    return found_check(fx, sorted(matches))


def _py_count(fx: Fixture, spec: dict) -> Check:
    n = str(sum(p.endswith(".py") for p in visible(fx)))
    return Check("output", none_of=other_lines(fx), no_names=other_names(fx, ()), number=n)


def _cargo(fx: Fixture, *groups: tuple[str, ...], none_of: tuple[str, ...] = ()) -> Check:
    sources = {p for p in fx.tree_files() if p.startswith("src/")}
    return Check("output", all_of=groups, none_of=(*none_of, *other_lines(fx, keep=sources)))


def _diff(fx: Fixture, spec: dict) -> Check:
    modified = fx.facts["modified"]
    return Check("output", all_of=(one("+" + fx.facts["added_line"]),), none_of=other_lines(fx, keep=set(modified)),
                 no_names=other_names(fx, modified, among=committed(fx)))  # fmt: skip


def _log(fx: Fixture, spec: dict) -> Check:
    newest_first = fx.facts["subjects"][::-1]
    n = spec["n"]
    return Check("output", all_of=tuple(one(s) for s in newest_first[:n]), none_of=(*newest_first[n:], *other_lines(fx)))


def _show_commit(fx: Fixture, spec: dict) -> Check:
    files = fx.facts["commit_files"][-1]
    return Check("output", all_of=(one(fx.facts["subjects"][-1]), *(one(f) for f in files)), none_of=last_commit_excess(fx))


def _output(fx: Fixture, spec: dict) -> Check:
    """Explicit groups, and the walls the spec asks for (see the module docstring)."""
    all_of = _groups(spec.get("all_of"))
    none_of = list(spec.get("none_of", ()))
    if "keep_lines" in spec:
        none_of += other_lines(fx, keep=set(spec["keep_lines"]), allowed=[s for group in all_of for s in group])
    subjects = fx.facts["subjects"]
    none_of += subjects if spec.get("all_commits") else subjects[:-1] if spec.get("older_commits") else []
    no_names = other_names(fx, spec["names_shown"]) if "names_shown" in spec else ()
    return Check("output", all_of=all_of, none_of=tuple(none_of), no_names=no_names, number=spec.get("number", ""))


def _files(fx: Fixture, spec: dict) -> Check:
    tree = fx.tree_files()
    changes: dict[str, str | None] = dict(spec.get("write", {}))
    for path, line in spec.get("append", {}).items():
        changes[path] = tree[path] + line + "\n"
    if "replace" in spec:
        path, old, new = spec["replace"]["file"], spec["replace"]["old"], spec["replace"]["new"]
        changes[path] = tree[path].replace(old, new)
    for gone in spec.get("delete", ()):
        changes |= {p: None for p in tree if p == gone or p.startswith(gone.rstrip("/") + "/")}
    return Check("files", files=tuple(changes.items()))


def _msg(fx: Fixture, spec: dict) -> Check:
    return Check("msg", all_of=_groups(spec.get("all_of")), none_of=tuple(spec.get("none_of", ())),
                 no_names=tuple(spec.get("no_names", ())), number=spec.get("number", ""),
                 question=spec.get("question", False))  # fmt: skip


RULES: dict[str, Callable[[Fixture, dict], Check]] = {
    "listing": _listing, "recursive": _recursive, "details": _details, "show": _show, "lines": _lines,
    "count": _count, "grep_file": _grep_file, "find": _find, "py_count": _py_count,
    "search": lambda fx, spec: search_check(fx, spec["text"], ()),
    "todo": lambda fx, spec: search_check(fx, "TODO", (one(fx.facts["todo"]),)),
    "definition": lambda fx, spec: search_check(fx, spec["symbol"], (), holders=(spec["file"],)),
    "py_tests": lambda fx, spec: test_summary(fx),
    "cargo_tests": lambda fx, spec: _cargo(fx, one("test result:"), one(fx.facts["failing_test"])),
    "cargo_ok": lambda fx, spec: _cargo(fx, one("Finished"), none_of=("error[",)),
    "binary": lambda fx, spec: _cargo(fx, one(fx.facts["binary_output"]), none_of=("error[",)),
    "script": lambda fx, spec: script_check(fx),
    "status": lambda fx, spec: status_check(fx),
    "diff": _diff, "log": _log, "show_commit": _show_commit,
    "last_commit": lambda fx, spec: Check("output", all_of=(one(fx.facts["subjects"][-1]),), none_of=last_commit_excess(fx)),
    "output": _output, "files": _files, "msg": _msg,
    "runs": lambda fx, spec: Check("runs", run=(spec["command"], spec["prints"])),
}  # fmt: skip


def build_check(fx: Fixture, spec: dict) -> Check:
    """The :class:`Check` that ``spec`` describes on ``fx``; an unknown rule is refused by name."""
    rule = spec.get("rule")
    if rule not in RULES:
        raise ValueError(f"blind check rule {rule!r} is not one of {sorted(RULES)}")
    return RULES[rule](fx, spec)
