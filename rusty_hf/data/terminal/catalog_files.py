"""Intents that read the work dir: list, show, head/tail, count, search, find.

Each builder draws its argument from the fixture and judges by the command's output: the names a
listing must show, the lines, the number, the file that holds the text; and what the answer must not
show besides (``excess.py``): file contents in a listing, other files' lines beside the one shown,
other names beside the one counted, lines without the searched text.
"""

from __future__ import annotations

import random
import re
from pathlib import PurePosixPath

from rusty_hf.data.terminal import phrasings
from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.excess import other_lines, other_names
from rusty_hf.data.terminal.fixtures import Fixture
from rusty_hf.data.terminal.intents import Case, cmd, intent
from rusty_hf.data.terminal.values import ValuePool


def visible(fx: Fixture) -> dict[str, str]:
    """The working tree without dotfiles (what ``ls`` and ``find -name`` users mean)."""
    return {p: c for p, c in fx.tree_files().items() if not any(part.startswith(".") for part in p.split("/"))}


def children(fx: Fixture, folder: str) -> list[str]:
    """Names directly inside ``folder`` ('' for the root), files and folders."""
    prefix = "" if folder in ("", ".") else folder.rstrip("/") + "/"
    return sorted({p[len(prefix) :].split("/")[0] for p in visible(fx) if p.startswith(prefix)})


def folders(fx: Fixture) -> list[str]:
    """The work dir's visible folders at the top ('build' too)."""
    return sorted({p.split("/")[0] for p in visible(fx) if "/" in p})


def text_file(fx: Fixture, rng: random.Random, min_lines: int = 1, exts: tuple[str, ...] = (".txt", ".md", ".csv", ".py", ".rs", ".toml")) -> str:
    """One of the work dir's files ending in ``exts`` with at least ``min_lines`` lines."""
    files = [p for p, c in visible(fx).items() if c.count("\n") >= min_lines and p.endswith(exts)]
    return rng.choice(sorted(files))


def lines_of(fx: Fixture, path: str) -> list[str]:
    return fx.tree_files()[path].splitlines()


def one(*needles: str) -> tuple[str, ...]:
    return tuple(needles)


def count_check(fx: Fixture, path: str, number: int) -> Check:
    """A count of ``path``: the output states that number and no other, and names no other file."""
    return Check("output", none_of=other_lines(fx, keep={path}), no_names=other_names(fx, {path}), number=str(number))


def search_check(fx: Fixture, needle: str, extra: tuple[tuple[str, ...], ...], holders: tuple[str, ...] = ()) -> Check:
    """A search for ``needle``: the files that hold it (``holders``, default all) and ``extra`` shown, no
    line without it, no file without it named."""
    held = [p for p, c in visible(fx).items() if needle in c]
    holders = holders or tuple(sorted(held))
    return Check("output", all_of=(*(one(p) for p in holders), *extra), none_of=other_lines(fx, needle=needle),
                 no_names=other_names(fx, held))  # fmt: skip


def found_check(fx: Fixture, matches: list[str]) -> Check:
    """A find: every match shown, no other file named, no content shown."""
    return Check("output", all_of=tuple(one(p) for p in matches), none_of=other_lines(fx), no_names=other_names(fx, matches))


@intent("list_root", "python", phrasings.LIST_ROOT)
def list_root(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    names = children(fx, "")
    check = Check("output", all_of=tuple(one(n) for n in names), none_of=other_lines(fx), no_names=other_names(fx, names))
    return Case({}, (cmd("ls"),), check)


@intent("list_dir", "python", phrasings.LIST_DIR)
def list_dir(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    folder = rng.choice(folders(fx))
    names = children(fx, folder)
    inside = [f"{folder}/{n}" for n in names]
    check = Check("output", all_of=tuple(one(n) for n in names), none_of=other_lines(fx), no_names=other_names(fx, inside))
    return Case({"dir": folder}, (cmd(f"ls {folder}"),), check, args=(folder,))


@intent("list_tree", "python", phrasings.LIST_TREE)
def list_tree(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    """Every visible file, in every folder: a nested file's name is what ``ls`` alone leaves out."""
    names = sorted({PurePosixPath(p).name for p in visible(fx)})
    check = Check("output", all_of=tuple(one(n) for n in names), none_of=other_lines(fx), no_counts=True)
    return Case({}, (cmd("ls -R"),), check)


@intent("file_details", "python", phrasings.FILE_DETAILS)
def file_details(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = rng.choice(sorted(visible(fx)))
    size = str(len(fx.tree_files()[path].encode()))
    # the long listing's mode string: the details asked for, which a count beside the name ('wc') lacks
    mode = one("rw-", "rwx")
    check = Check("output", all_of=(one(path), one(size), mode), none_of=other_lines(fx), no_names=other_names(fx, {path}))
    return Case({"file": path}, (cmd(f"ls -l {path}"),), check, args=(path,))


@intent("show_file", "python", phrasings.SHOW_FILE)
def show_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng)
    lines = [line for line in lines_of(fx, path) if line.strip()]
    check = Check("output", all_of=tuple(one(line) for line in lines), none_of=other_lines(fx, keep={path}))
    return Case({"file": path}, (cmd(f"cat {path}"),), check, args=(path,))


def _head_tail(fx: Fixture, rng: random.Random, tail: bool) -> tuple[str, int, list[str], list[str]]:
    path = text_file(fx, rng, min_lines=4)
    lines = lines_of(fx, path)
    n = rng.randint(1, len(lines) - 1)
    shown = lines[-n:] if tail else lines[:n]
    hidden = lines[: len(lines) - n] if tail else lines[n:]
    hidden = [h for h in hidden if h.strip() and all(h not in s for s in shown)]
    return path, n, shown, hidden


@intent("head_file", "python", phrasings.HEAD_FILE)
def head_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path, n, shown, hidden = _head_tail(fx, rng, tail=False)
    check = Check("output", all_of=tuple(one(s) for s in shown if s.strip()), none_of=(*hidden, *other_lines(fx, keep={path})))
    return Case({"file": path, "n": str(n)}, (cmd(f"head -n {n} {path}"),), check, args=(path,))


@intent("tail_file", "python", phrasings.TAIL_FILE)
def tail_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path, n, shown, hidden = _head_tail(fx, rng, tail=True)
    check = Check("output", all_of=tuple(one(s) for s in shown if s.strip()), none_of=(*hidden, *other_lines(fx, keep={path})))
    return Case({"file": path, "n": str(n)}, (cmd(f"tail -n {n} {path}"),), check, args=(path,))


@intent("last_line", "python", phrasings.LAST_LINE)
def last_line(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng, min_lines=3)
    lines = lines_of(fx, path)
    hidden = [h for h in lines[:-1] if h.strip() and h not in lines[-1]]
    check = Check("output", all_of=(one(lines[-1]),), none_of=(*hidden, *other_lines(fx, keep={path})))
    return Case({"file": path}, (cmd(f"tail -n 1 {path}"),), check, args=(path,))


@intent("nth_line", "python", phrasings.NTH_LINE)
def nth_line(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng, min_lines=4)
    lines = lines_of(fx, path)
    numbers = [n for n in range(2, len(lines)) if lines[n - 1].strip() and lines.count(lines[n - 1]) == 1]
    n = rng.choice(numbers or [1])
    hidden = [h for h in lines if h.strip() and h not in lines[n - 1]]
    check = Check("output", all_of=(one(lines[n - 1]),), none_of=(*hidden, *other_lines(fx, keep={path})))
    return Case({"file": path, "n": str(n)}, (cmd(f"head -n {n} {path} | tail -n 1"),), check, args=(path, str(n)))


def _count(name: str, flag: str, measure, unit: str, templates: tuple[str, ...]) -> None:
    def build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
        path = text_file(fx, rng)
        n = measure(fx.tree_files()[path])
        # closed as `how_long` closes the same `wc -l`: "3 lines.", never "It shows: 3 notes.txt." beside it
        return Case({"file": path}, (cmd(f"wc {flag} {path}"),), count_check(fx, path, n), args=(path,), closing=f"{n} {unit}.")

    build.__name__ = name
    intent(name, "python", templates)(build)


_count("count_lines", "-l", lambda text: text.count("\n"), "lines", phrasings.COUNT_LINES)
_count("count_words", "-w", lambda text: len(text.split()), "words", phrasings.COUNT_WORDS)
_count("count_bytes", "-c", lambda text: len(text.encode()), "bytes", phrasings.COUNT_BYTES)


@intent("search_text", "python", phrasings.SEARCH_TEXT)
def search_text(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    if fx.kind == "rust":  # a crate's notes, and the line its binary prints (in src/main.rs)
        candidates = sorted({*(line for line in fx.tree_files()["NOTES.md"].splitlines() if line), fx.facts["binary_output"]})
    else:
        candidates = sorted({line for path, c in visible(fx).items() if path.endswith(".txt") for line in c.splitlines() if line})
    text = rng.choice(candidates)
    words = [w for w in text.split() if len(w) >= 3]
    roll = rng.random()
    if len(words) >= 2 and roll < 0.5:  # a user searches for a word or two as often as for a whole line
        text = rng.choice(words) if roll < 0.3 else " ".join(text.split()[:2])
    check = search_check(fx, text, ())
    return Case({"text": text}, (cmd(f'grep -rn "{text}" .'),), check, args=(text,))


@intent("grep_file", "python", phrasings.GREP_FILE)
def grep_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    """The lines of one text file that hold a word (`grep WORD FILE`): those lines, and none of its others.

    The word is on some of the file's lines and not all of them, so `cat FILE` shows too much and a search of the
    whole tree names other files; users quote the word they search for, as the phrasings do.
    """
    choices = []
    for path, content in sorted(visible(fx).items()):
        lines = [line for line in content.splitlines() if line.strip()]
        if not path.endswith((".txt", ".md", ".csv")) or len(lines) < 3:
            continue
        for word in sorted({w for line in lines for w in re.findall(r"[A-Za-z]{3,}", line)}):
            if 0 < sum(word in line for line in lines) < len(lines):
                choices.append((path, word))
    path, word = rng.choice(choices)
    lines = lines_of(fx, path)
    shown = [line for line in lines if word in line]
    hidden = [line for line in lines if line.strip() and word not in line and all(line not in s for s in shown)]
    check = Check("output", all_of=tuple(one(s) for s in shown), none_of=(*hidden, *other_lines(fx, keep={path})),
                  no_names=other_names(fx, {path}))  # fmt: skip
    return Case({"file": path, "text": word}, (cmd(f'grep "{word}" {path}'),), check, args=(word, path))


@intent("find_todo", "python", phrasings.FIND_TODO)
def find_todo(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    check = search_check(fx, "TODO", (one(fx.facts["todo"]),))
    return Case({}, (cmd("grep -rn TODO ."),), check)


@intent("find_definition", "python", phrasings.FIND_DEFINITION)
def find_definition(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    classes = fx.facts.get("classes", {})
    symbols = {**fx.facts["functions"], **classes}
    symbol = rng.choice(sorted(symbols))
    keyword = "class" if symbol in classes else "fn" if fx.kind == "rust" else "def"
    check = search_check(fx, symbol, (), holders=(symbols[symbol],))
    return Case({"symbol": symbol}, (cmd(f'grep -rn "{keyword} {symbol}" .'),), check, args=(symbol,))


@intent("find_by_name", "python", phrasings.FIND_BY_NAME)
def find_by_name(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = rng.choice(sorted(p for p in visible(fx) if "/" in p and not p.endswith("__init__.py")))
    name = PurePosixPath(path).name
    matches = sorted(p for p in visible(fx) if PurePosixPath(p).name == name)
    return Case({"name": name}, (cmd(f'find . -name "{name}"'),), found_check(fx, matches), args=(name,))


@intent("find_by_ext", "python", phrasings.FIND_BY_EXT)
def find_by_ext(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    ext = rng.choice(["rs", "toml", "md"] if fx.kind == "rust" else ["py", "txt", "csv", "md"])
    matches = sorted(p for p in visible(fx) if p.endswith("." + ext))
    return Case({"ext": ext}, (cmd(f'find . -name "*.{ext}"'),), found_check(fx, matches))


@intent("first_line", "python", phrasings.FIRST_LINE)
def first_line(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng, min_lines=3)
    lines = lines_of(fx, path)
    hidden = [h for h in lines[1:] if h.strip() and h not in lines[0]]
    check = Check("output", all_of=(one(lines[0]),), none_of=(*hidden, *other_lines(fx, keep={path})))
    return Case({"file": path}, (cmd(f"head -n 1 {path}"),), check, args=(path,))


@intent("list_hidden", "python", phrasings.LIST_HIDDEN)
def list_hidden(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    names = children(fx, "")
    dotfiles = sorted(p for p in fx.tree_files() if "/" not in p and p.startswith("."))  # what `ls` alone hides
    check = Check("output", all_of=tuple(one(n) for n in (*dotfiles, *names)), none_of=other_lines(fx),
                  no_names=other_names(fx, names))  # fmt: skip
    return Case({}, (cmd("ls -a"),), check)


@intent("count_dir_files", "python", phrasings.COUNT_DIR_FILES)
def count_dir_files(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    folder = rng.choice(folders(fx))
    inside = [f"{folder}/{n}" for n in children(fx, folder)]
    # no name at all: `wc -l scripts/*` counts a one-line file's lines, beside its name
    check = Check("output", none_of=other_lines(fx), no_names=other_names(fx, ()), number=str(len(inside)))
    return Case({"dir": folder}, (cmd(f"ls {folder} | wc -l"),), check, args=(folder,))


@intent("diff_files", "python", phrasings.DIFF_FILES)
def diff_files(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    def own(x: str, y: str) -> list[str]:  # the lines of x that y lacks
        return [line for line in lines_of(fx, x) if line.strip() and line not in lines_of(fx, y)]

    texts = sorted(p for p in visible(fx) if "/" not in p and p.endswith((".txt", ".md")))
    pairs = [(a, b) for a in texts for b in texts if a != b and own(a, b) and own(b, a)]
    a, b = rng.choice(pairs)
    left, right = own(a, b)[0], own(b, a)[0]
    # a diff marks each side's line (`<`/`>`, or `-`/`+` unified): `cat a b` shows both without saying which differs
    check = Check("output", all_of=(one(f"< {left}", f"-{left}"), one(f"> {right}", f"+{right}")),
                  none_of=other_lines(fx, keep={a, b}))  # fmt: skip
    return Case({"file": a, "other": b}, (cmd(f"diff {a} {b}"),), check, args=(a, b))


def _count_lines_with(name: str, needle: str, files, templates: tuple[str, ...]) -> None:
    """A count of the lines of one of ``files(fx)`` that hold ``needle`` (`grep -c`)."""
    def build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
        path = rng.choice(sorted(files(fx)))
        number = sum(needle in line for line in lines_of(fx, path))
        return Case({"file": path}, (cmd(f"grep -c '{needle}' {path}"),), count_check(fx, path, number), args=(path,))

    build.__name__ = name
    intent(name, "python", templates)(build)


_count_lines_with("count_functions", "def ", lambda fx: {*fx.facts["modules"].values(), fx.facts["test_file"]},
                  phrasings.COUNT_FUNCTIONS)  # fmt: skip
_count_lines_with("count_tests", "def test", lambda fx: {fx.facts["test_file"]}, phrasings.COUNT_TESTS)
