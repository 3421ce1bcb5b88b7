"""Intents that read the work dir: list, show, head/tail, count, search, find.

Each builder draws its argument from the fixture and judges by the command's output: the names a
listing must show, the lines, the number, the file that holds the text.
"""

from __future__ import annotations

import random
from pathlib import PurePosixPath

from rusty_hf.data.terminal.checks import Check
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


def text_file(fx: Fixture, rng: random.Random, min_lines: int = 1) -> str:
    files = [p for p, c in visible(fx).items() if c.count("\n") >= min_lines and p.endswith((".txt", ".md", ".csv", ".py", ".rs"))]
    return rng.choice(sorted(files))


def lines_of(fx: Fixture, path: str) -> list[str]:
    return fx.tree_files()[path].splitlines()


def one(*needles: str) -> tuple[str, ...]:
    return tuple(needles)


@intent("list_root", "python", (
    "what files are here?", "ls", "list the files", "show me the files in this folder", "what's in this directory?",
    "list everything here", "which files do we have", "show the folder contents", "files here?", "list this dir",
))  # fmt: skip
def list_root(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    names = children(fx, "")
    return Case({}, (cmd("ls"),), Check("output", all_of=tuple(one(n) for n in names)))


@intent("list_dir", "python", (
    "list the files in {dir}", "ls {dir}", "what's in {dir}?", "show me what {dir} holds", "which files are in {dir}",
    "contents of {dir}?", "list {dir} please", "show the {dir} folder", "what does the {dir} directory contain?",
))  # fmt: skip
def list_dir(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    folder = rng.choice(sorted({p.split("/")[0] for p in visible(fx) if "/" in p}))
    names = children(fx, folder)
    return Case({"dir": folder}, (cmd(f"ls {folder}"),), Check("output", all_of=tuple(one(n) for n in names)), args=(folder,))


@intent("file_details", "python", (
    "show details of {file}", "how big is {file}?", "ls -l {file}", "what size is {file}", "file info for {file}",
    "permissions and size of {file}?", "give me the details on {file}", "when was {file} modified and how big is it?",
))  # fmt: skip
def file_details(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = rng.choice(sorted(visible(fx)))
    size = str(len(fx.tree_files()[path].encode()))
    return Case({"file": path}, (cmd(f"ls -l {path}"),), Check("output", all_of=(one(path), one(size))), args=(path,))


@intent("show_file", "python", (
    "show me {file}", "cat {file}", "what's in {file}?", "print {file}", "open {file}", "display {file}",
    "let me see {file}", "read {file} to me", "{file} contents?", "show the contents of {file}",
))  # fmt: skip
def show_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = text_file(fx, rng)
    lines = [line for line in lines_of(fx, path) if line.strip()]
    return Case({"file": path}, (cmd(f"cat {path}"),), Check("output", all_of=tuple(one(line) for line in lines)), args=(path,))


def _head_tail(fx: Fixture, rng: random.Random, tail: bool) -> tuple[str, int, list[str], list[str]]:
    path = text_file(fx, rng, min_lines=4)
    lines = lines_of(fx, path)
    n = rng.randint(1, len(lines) - 1)
    shown = lines[-n:] if tail else lines[:n]
    hidden = lines[: len(lines) - n] if tail else lines[n:]
    hidden = [h for h in hidden if h.strip() and all(h not in s for s in shown)]
    return path, n, shown, hidden


@intent("head_file", "python", (
    "first {n} lines of {file}", "head -n {n} {file}", "show the top {n} lines of {file}", "show me the start of {file}, {n} lines",
    "print the first {n} lines in {file}", "what are the first {n} lines of {file}?", "{file}: first {n} lines",
    "give me {n} lines from the top of {file}",
))  # fmt: skip
def head_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path, n, shown, hidden = _head_tail(fx, rng, tail=False)
    check = Check("output", all_of=tuple(one(s) for s in shown if s.strip()), none_of=tuple(hidden))
    return Case({"file": path, "n": str(n)}, (cmd(f"head -n {n} {path}"),), check, args=(path,))


@intent("tail_file", "python", (
    "last {n} lines of {file}", "tail -n {n} {file}", "show the bottom {n} lines of {file}", "what are the last {n} lines of {file}?",
    "print the end of {file}, {n} lines", "{file}: last {n} lines",
))  # fmt: skip
def tail_file(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path, n, shown, hidden = _head_tail(fx, rng, tail=True)
    check = Check("output", all_of=tuple(one(s) for s in shown if s.strip()), none_of=tuple(hidden))
    return Case({"file": path, "n": str(n)}, (cmd(f"tail -n {n} {path}"),), check, args=(path,))


def _count(name: str, flag: str, measure, phrasings: tuple[str, ...]) -> None:
    def build(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
        path = text_file(fx, rng)
        number = str(measure(fx.tree_files()[path]))
        return Case({"file": path}, (cmd(f"wc {flag} {path}"),), Check("output", all_of=(one(number),)), args=(path,))

    build.__name__ = name
    intent(name, "python", phrasings)(build)


_count("count_lines", "-l", lambda text: text.count("\n"), (
    "how many lines in {file}?", "count the lines of {file}", "wc -l {file}", "line count of {file}",
    "how long is {file} in lines", "number of lines in {file}?", "lines in {file}?", "tell me how many lines {file} has",
))  # fmt: skip
_count("count_words", "-w", lambda text: len(text.split()), (
    "how many words in {file}?", "count the words of {file}", "wc -w {file}", "word count of {file}",
    "number of words in {file}?", "words in {file}?",
))  # fmt: skip
_count("count_bytes", "-c", lambda text: len(text.encode()), (
    "how many bytes is {file}?", "count the bytes in {file}", "wc -c {file}", "byte count of {file}",
    "size of {file} in bytes?", "how many characters are in {file}", "bytes in {file}?",
))  # fmt: skip


@intent("search_text", "python", (
    "search for '{text}'", "where does '{text}' appear?", "grep for '{text}'", "find the text '{text}'",
    "which file mentions '{text}'", "look for '{text}' in the project", "find '{text}' anywhere here",
    "is '{text}' written somewhere?",
))  # fmt: skip
def search_text(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    candidates = sorted({line for path, c in visible(fx).items() if path.endswith(".txt") for line in c.splitlines() if line})
    text = rng.choice(candidates)
    holders = sorted(p for p, c in visible(fx).items() if text in c)
    check = Check("output", all_of=tuple(one(p) for p in holders))
    return Case({"text": text}, (cmd(f'grep -rn "{text}" .'),), check, args=(text,))


@intent("find_todo", "python", (
    "find the TODOs", "any TODO comments?", "grep TODO", "where are the todos", "list every TODO in the code",
    "show me the TODO notes", "what's left to do in the code?",
))  # fmt: skip
def find_todo(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    check = Check("output", all_of=(one(fx.facts["todo_file"]), one(fx.facts["todo"])))
    return Case({}, (cmd("grep -rn TODO ."),), check)


@intent("find_definition", "python", (
    "where is {symbol} defined?", "find the definition of {symbol}", "which file defines {symbol}", "locate {symbol}",
    "grep for the def of {symbol}", "where's {symbol} implemented", "find {symbol} in the code", "show me where {symbol} lives",
))  # fmt: skip
def find_definition(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    symbols = {**fx.facts["functions"], **fx.facts["classes"]}
    symbol = rng.choice(sorted(symbols))
    keyword = "class" if symbol in fx.facts["classes"] else "def"
    return Case({"symbol": symbol}, (cmd(f'grep -rn "{keyword} {symbol}" .'),), Check("output", all_of=(one(symbols[symbol]),)),
                args=(symbol,))  # fmt: skip


@intent("find_by_name", "python", (
    "find the file {name}", "where is {name}?", "locate {name}", "find . -name {name}", "which folder has {name}",
    "search for a file called {name}", "path of {name}?", "find {name} for me",
))  # fmt: skip
def find_by_name(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    path = rng.choice(sorted(p for p in visible(fx) if "/" in p and not p.endswith("__init__.py")))
    name = PurePosixPath(path).name
    matches = sorted(p for p in visible(fx) if PurePosixPath(p).name == name)
    return Case({"name": name}, (cmd(f'find . -name "{name}"'),), Check("output", all_of=tuple(one(p) for p in matches)),
                args=(name,))  # fmt: skip


@intent("find_by_ext", "python", (
    "list all .{ext} files", "find every {ext} file", "which .{ext} files are there?", "show me the *.{ext} files",
    "find files ending in .{ext}", "all the {ext} files please", "where are the .{ext} files",
))  # fmt: skip
def find_by_ext(fx: Fixture, rng: random.Random, pool: ValuePool) -> Case:
    ext = rng.choice(["py", "txt", "csv", "md"])
    matches = sorted(p for p in visible(fx) if p.endswith("." + ext))
    return Case({"ext": ext}, (cmd(f'find . -name "*.{ext}"'),), Check("output", all_of=tuple(one(p) for p in matches)))
