"""What a right answer does not show: the walls the catalogue puts around each output check.

A request asks for one thing; a command that prints everything holds that thing too. So each check
also lists what the answer has no reason to print (``Check.none_of`` and ``Check.no_names``), drawn
from the fixture when the case is built:

- :func:`other_lines`: the lines of files the request did not ask about (or, for a search, the lines
  without the searched text): ``cat * */*``, ``grep -rn . .`` and ``git log -p`` show them;
- :func:`other_names`: the names of files outside what was asked (a listing's folder, the counted
  file, the search's hits): ``ls -R``, ``find .`` and ``wc *`` show them.

Neither draws from the request's random stream, so the requests of every split stay what they were.

    Check("output", all_of=..., none_of=other_lines(fx, keep={path}), no_names=other_names(fx, {path}))
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import PurePosixPath

from rusty_hf.data.terminal.fixtures import Fixture

MIN_LINE_CHARS = 6  # shorter lines ('}', 'built') occur anywhere: they tell no file apart
_NAME_LIKE = re.compile(r"[\w./-]*")  # 'build/', '/target': a listing may print such a line as a name


def _visible(fx: Fixture) -> dict[str, str]:
    return {p: c for p, c in fx.tree_files().items() if not any(part.startswith(".") for part in p.split("/"))}


def other_lines(fx: Fixture, keep: Collection[str] = (), needle: str = "", allowed: Iterable[str] = ()) -> tuple[str, ...]:
    """Lines (stripped) of the fixture's files outside ``keep`` that the answer must not show.

    Args:
        keep: paths whose content the answer may show (the file shown, the commit's files).
        needle: a search's text: lines holding it are hits, not excess.
        allowed: strings the answer must show (a script's output): no line inside one counts.

    A line counts only when it is long enough to tell a file apart, is not a bare name, and occurs in
    no kept file, no hit and no allowed string (the right answer may show those).
    """
    files = fx.tree_files()
    hits = [line for content in files.values() for line in content.splitlines() if needle and needle in line]
    shown = "\n".join([*(files[p] for p in keep if p in files), *hits, *allowed])
    out: dict[str, None] = {}
    for path, content in sorted(files.items()):
        if path in keep:
            continue
        for line in content.splitlines():
            line = line.strip()
            if len(line) >= MIN_LINE_CHARS and not _NAME_LIKE.fullmatch(line) and line not in shown:
                out.setdefault(line)
    return tuple(out)


def other_names(fx: Fixture, shown: Collection[str], among: Iterable[str] | None = None) -> tuple[str, ...]:
    """Names of the visible files outside ``shown`` (paths, or a listing's names) that the answer must not name.

    A file goes by its base name ('ledger.py'), or by its whole path where a shown entry has the same
    base name ('tests/__init__.py' beside 'pkg/__init__.py'). ``among`` limits the files (default: all).
    """
    shown_bases = {PurePosixPath(p).name for p in shown}
    paths = sorted(_visible(fx) if among is None else among)
    out = []
    for path in paths:
        if path in shown:
            continue
        base = PurePosixPath(path).name
        out.append(path if base in shown_bases else base)
    return tuple(dict.fromkeys(out))
