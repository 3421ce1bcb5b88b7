"""Copy bias: one rule copies what the conversation gave into an action's open string.

A terminal request names files, values and phrases the model may never have seen ("count the lines of
harbor_notes.txt", "append 'call bob'"). A small recurrent model with an untied head cannot write a token it was
never trained to output, however well it learned *where* a name goes. The bias copies for it: the model still
decides what to write, and tokens that copy one of the conversation's spans get a bonus on their logits.

**Spans** (:func:`copy_targets`), typed by where they come from, never by a word list:

- QUOTED: text the user put in quotes ("this exact text"), and which of those a file of the work dir holds;
- NAME: words that look like what a command takes (``_ . / -``, a digit, an inner capital: ``harbor_notes.txt``,
  ``scripts/run.py``, ``BudgetArchive``, ``12``) and words that are a part of a workspace path (``bundle`` for
  ``bundle/``); a path is one name (its basename alone names no file: ``wc -c run.py`` fails for scripts/run.py);
- NUMBER: a count written as a word, as its digits ("the first two lines" -> ``2``), and an ordinal's number ("the
  3rd line", "the fifth line" -> ``3``, ``5``; not "first" or "second", which often name no line);
- LINE: the lines the commands since printed (a MSG may quote one whole: "It prints: " + that line);
- SHOWN: the lines the last command printed (`shown_lines`), what a closing MSG that states the output lists;
- EARLIER: the work dir's files the conversation named before the request (`earlier_paths`: in a request, an
  action or an output), where the request names nothing but a number ("how many lines is it?", "the last 3 lines
  of that file"): names of a command's arguments only (not its program, an EDIT's path or a message);
- RESOLVED: the path of a work dir file the request names by its basename inside a folder or in another case
  ("april.txt" for ``log/april.txt``, "readme" for ``README.md``: `resolved_paths`), for a command's arguments outside
  a quote, as EARLIER; what the user typed stays a NAME (``find . -name "april.txt"``).

**Slots**, from the grammar of the open string, never from a program's name: the JSON field (``command``,
``path``, ``content``, ``message``); inside a command or a file's content, whether a quote the string opened
(after a space, ``(``, ``=``, ``[``, ``,``, ``:`` or ``{``) is still open; the shell's redirect.

- PATH (an EDIT's ``path``): one of the request's names without a space, from its first byte to its end; the file
  after ``>``/``>>``: where it starts, the names of files the command does not read already get a bonus (``>&2``
  and ``/dev/null`` stay the model's), and once begun it is one of them, whole;
- PROGRAM (a command's first word): names, not a quoted value (``call mom notes.txt`` is no command);
- QUOTED (inside such a quote: ``echo '``, ``grep -rn \\"``, ``print('``): where the quote or a ``/`` in it opens,
  one of the unused quoted values starts (those a file of the work dir holds first: text that is there before
  text that is new), whole, then the quote closes or a ``/`` alone parts it from the next; one letter before a
  ``/`` (``s/``) is the quote's own syntax; once every value is in, the quote closes after a ``/`` or takes a
  flag (``s/a/b/g``). A file's name (``/`` or ``.`` in it) is a quote's whole text (``-name "a.py"``), never
  after a word in it (``grep -c 'def `` then the file). A backslash escapes a quote (the shell's ``"a\\"b"``, Python's ``'it\\'s'``). A literal in
  code with no quoted value left is the model's to write: a name starts there at the start bonus
  (``print('42')``), and ``split(',')`` stays possible;
- SHOWN (a MSG begun with ``SHOWN_PREFIX``, "It shows: ", the form of `data.terminal.dataset.closing_message`):
  the rest is the last output's lines (SHOWN), whole, in their order, each at most once, joined by ", ", then
  "." and the string's end. A short output (`states_whole`: what training states) is stated whole, every line
  from the first; of a longer one, which lines is the model's. A name or a number the output does not hold
  cannot be written there (issue 37: with a bias alone, 14-18 of 26 such closings listed what no output held);
- STATUS (a MSG after a success with no line to state: an EDIT that wrote, a command that printed nothing): "Done.",
  what training closes it with (after `sed -i` a model trained to state outputs wrote file lines from memory
  instead); the action itself (another CMD, an EDIT) stays the model's. After a failure the message is the model's
  (the failing test is in the output), but it cannot begin "It shows": there are no lines to state;
- WORD (elsewhere in a command or a content) and free text (a MSG, where LINEs count as quoted: the first 48 and
  the last 16 of a long output). A content that is the last quoted value left is that line: a newline, then the
  string ends; a content of several goes on after each (a newline starts a span).

**The rule**, the same in every slot: where a span may start (the string's start, or after a space, quote, ``/``,
``=``, ``(``, ``:`` or ``,``: the ``c`` of ``wc -c`` begins nothing), the tokens that start a span get
``start_bonus`` (``quoted_bonus`` for a QUOTED value or a LINE: the user saying "this exact text"); right after a
word, the tokens that bring a space and start one. Once the first byte of a span is written (``LOCK_AFTER``; 3 in a
MSG, where the "t" of "the" must not turn into "tests/..."), the copy is locked: a token that could go on with a
name must go on with this one. A small model otherwise drifts back into a name it remembers halfway through
("check_pa" + "yments" for check_patches.py). A quoted value, a copy whose copied part holds ``/``, ``_`` or
``.``, a number begun (the ``1`` of ``10``) and a file's name begun after a program are finished: no other token
may end them. Once a span is whole the word ends (``call mom`` + ``ortar`` is refused; a number ends at a
non-digit: ``sed -n '4p'``). A span the action already
holds (in the open string or a string it closed, as a whole word: ``a.txt`` is not held by ``data.txt``) is not
offered again: each value goes to one slot.

Only tokens with a letter or digit get a bonus (and the first token of a quoted value: "# Notes"): where a span
ends stays the model's decision. Spans are matched in the form they take inside a JSON string (escaped). The
bias never makes a token allowed: the grammar's mask comes after it.

    bias = CopyBias(token_bytes)                                   # once per tokenizer
    names = copy_candidates(["how many lines in harbor_notes.txt?"])   # ['harbor_notes.txt']
    bonuses, locked = bias.bonuses(b"wc -l", [escape_for_json_string(n) for n in names])  # {id of " harbor": 6.0, ...}
    targets = copy_targets(["append 'heavy hook' to a.txt"])         # names, which were quoted, lines
    bias.field_bonuses(b"echo '", targets.escaped(), "command", written=b"")  # " heavy"... at quoted_bonus
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_BONUS = 10.0
DEFAULT_START_BONUS = 6.0
DEFAULT_QUOTED_BONUS = 9.0
LOCK_AFTER = 1  # bytes of a name copied before the copy is locked (in a command, a path, a content)
MSG_LOCK_AFTER = 3  # in a MSG a short word ("t" of "the") must not turn into a name ("tests/...")
_WORD = re.compile(rb"[A-Za-z0-9_]")
_NAME_START = re.compile(rb"[A-Za-z0-9_./-]")
# What a copied name may follow inside the string: not "-" (the c of `wc -c` starts no name) nor a letter.
_BEFORE_NAME = frozenset(bytes([c]) for c in b" \"'=/(:,")
# separators a span follows directly or, in prose (a MSG), after a space: "untracked: a.txt"; a command writes "a,b"
_SPACED_AFTER = frozenset((b":", b","))
# A quoted span: its quotes are not inside a word (the ' of "I'm" opens nothing)
_QUOTED = re.compile(r"""(?<![A-Za-z0-9])(?:'([^'\n]{1,80})'|"([^"\n]{1,80})"|`([^`\n]{1,80})`)(?![A-Za-z0-9])""")
_TOKEN = re.compile(r"[A-Za-z0-9_./-]+")
_NAME_LIKE = re.compile(r"[_./\-0-9]|[a-z][A-Z]")
_PATH_PART = re.compile(rb"[/_.]")
_FILE = re.compile(rb"[/.]")
_SPACED_WORD = re.compile(rb" [A-Za-z0-9_]")
# A closed string of the action so far: '"path": "a.txt"' -> a.txt (JSON-escaped, as the names are)
_WORD_TEXT = re.compile(r"[A-Za-z0-9]")
# `>> plu`: the file a redirect writes (not `2>`, `->`, `=>`)
_REDIRECT = re.compile(rb"(?<![>0-9&=-])>>?(?P<space> ?)(?P<target>[A-Za-z0-9_./-]*)$")
_CLOSED = re.compile(rb'"(?:command|path|content|message)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_OPERATOR = re.compile(rb"[A-Za-z]/")  # a quote that starts with an operator (`s/a/b/`) may end with flags
_TOKEN_DIGITS = re.compile(rb"\d+")
_TRAILING_NAME = re.compile(rb"[A-Za-z0-9_./-]*$")
_LEADING_NAME = re.compile(rb"[A-Za-z0-9_./-]+")
_NAME_PUNCT = re.compile(rb"[._/]")
_NAME_MARK = re.compile(rb"[._/][A-Za-z0-9]")  # a word with one is a file's name ("notes.txt", "src/a", "x_y")
_TRAILING_DIGITS = re.compile(rb"\d+$")
_WORD_BYTE = re.compile(rb"[A-Za-z0-9_.]")  # what a number inside a name follows ("file2", "v0.1")
_FLAG = re.compile(rb"/[A-Za-z]$")  # one flag after the last `/` (`s/a/b/g`): the quote's end ("g" + "love" was not)
MAX_LINES = 64  # output lines a MSG may quote: the first and last of a long output
_LINE_ID = re.compile(r"[0-9a-f]{6,40}|\d+[:.]?")  # what leads a line of `git log --oneline` or a numbered list
SHOWN_PREFIX = "It shows: "  # how a closing MSG that states the last output begins; its lines follow, joined by ", "
_SHOWN_MARK = SHOWN_PREFIX[:-2].encode()  # where the SHOWN slot starts: b"It shows", before its ": "
SHOWN_LINES, SHOWN_CHARS = 10, 240  # the most output a closing MSG states whole (`states_whole`)
_SENTENCE_ENDS = (b".", b"!", b"?")  # a stated line that ends with one needs no "." after it
# The terminal's status line after a command's output (`agent.workspace`): "[exit code 0]", "[timed out after 30 s]"
TOOL_STATUS = re.compile(r"\[(exit code (-?\d+)|timed out)[^\]]*\]\s*$")
# The terminal's last line after an action whose changes were not applied (`agent.workspace`: declined by the user, a
# run that timed out or was killed; `agent.session`: a rewrite declined): its closing MSG says so and nothing else
NOT_APPLIED = re.compile(r"\[(?:[^\]\n]*its file changes were not kept[^\]\n]*|not written: [^\]\n]*)\]\s*$")


def escape_for_json_string(text: str) -> bytes:
    """``text`` as it is written inside a JSON string (what the model emits for it)."""
    return json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8")


# A count written as a word, copied as its digits ("the first two lines" -> 2)
_NUMERALS = {word: str(n) for n, word in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])}  # fmt: skip
# An ordinal is the number a command takes ("the 3rd line", "the fifth line" -> 3, 5): "first" and "second" are
# left out ("the first 5 lines", "a second file" name other numbers or none)
_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)", re.IGNORECASE)
_ORDINALS = {word: str(n) for n, word in enumerate(
    ["", "", "", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"]) if word}  # fmt: skip
_NUMBER_WORDS = {**_NUMERALS, **_ORDINALS}
# What a quote that opens quoted text inside a command or code follows (`echo '`, `print(\"`, `x = '`)
_QUOTE_OPENERS = frozenset(b" (=[,:{")


def copy_candidates(sources: Iterable[str], workspace_names: Iterable[str] = ()) -> list[str]:
    """The names in ``sources`` a reply may copy (NAME, QUOTED, PATH and NUMBER spans: see the module
    docstring), longest first.

    Args:
        sources: the user's request and the command outputs since.
        workspace_names: paths of the workspace's files and folders; a plain word of a source that is
            one of their parts counts as a name (a file the request names by its basename inside a folder, or
            in another case, is RESOLVED: `resolved_paths`).
    """
    workspace_names = list(workspace_names)
    parts = {part for name in workspace_names for part in re.split(r"[/]", name) if part}
    stems = parts | {part.rsplit(".", 1)[0] for part in parts}
    names: set[str] = set()
    for text in sources:
        for match in _QUOTED.finditer(text):
            names.add(next(group for group in match.groups() if group is not None))
        for match in _TOKEN.finditer(text):
            word = match.group().strip(".-/")
            if not word:
                continue
            ordinal = _ORDINAL.fullmatch(word)
            if ordinal and word not in stems:  # "3rd" is a number, not a name to copy whole (`head -n 3rd`)
                names.add(ordinal.group(1))
            elif _NAME_LIKE.search(word) or word in stems:
                names.add(word)
            elif word.lower() in _NUMBER_WORDS:
                names.add(_NUMBER_WORDS[word.lower()])
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


def resolved_paths(text: str, workspace_names: Iterable[str]) -> list[str]:
    """RESOLVED: the paths of the work dir's files that ``text`` (the request) names other than by their path: by
    the file's name inside a folder ("april.txt" for ``log/april.txt``) or in another case ("NOTES.md"), and a file
    whose name is in capitals by a plain word ("readme" for ``README.md``). A word two files answer to resolves to
    neither; any other plain word is a word, not a file ("wallet" for ``data/wallet.csv``, "cargo" for
    ``Cargo.toml``). ``cat april.txt`` fails where ``cat log/april.txt``
    reads it; what the user typed stays a name too (`find -name april.txt` wants it)."""
    by_word: dict[str, set[str]] = {}
    capitals: set[str] = set()  # files whose name is in capitals: a plain word may name them
    for path in _workspace_files(workspace_names):
        base = path.rsplit("/", 1)[-1]
        stem = base.rsplit(".", 1)[0]
        if stem.isupper():
            capitals.add(path)
        for key in {base.lower(), stem.lower()} - {""}:
            by_word.setdefault(key, set()).add(path)
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        word = match.group().strip("-/").rstrip(".")
        files = by_word.get(word.lower(), set())
        if len(files) != 1:
            continue
        (path,) = files
        # a plain word is a file only where the file's name is in capitals ("readme"; "cargo" is a program)
        if path != word and ("." in word or path in capitals) and path not in out:
            out.append(path)
    return out


def _workspace_files(workspace_names: Iterable[str]) -> set[str]:
    """The work dir's files: its paths without the folders (a folder is listed as ``log`` or ``log/``, or only as
    the start of its files' paths)."""
    names = {name.rstrip("/") for name in workspace_names if name.rstrip("/")}
    return names - {name[:at] for name in names for at, char in enumerate(name) if char == "/"}


@dataclass(frozen=True)
class CopyTargets:
    """What a reply may copy: every name (`copy_candidates`), which of them the user quoted, the lines the
    commands since printed (a MSG may quote one: "It prints: rapid cursor ok"), the workspace's paths, the quoted
    values a file of the workspace holds, and the request's TEXT spans."""

    names: tuple[str, ...]
    quoted: frozenset[str] = frozenset()
    lines: tuple[str, ...] = ()
    paths: frozenset[str] = frozenset()  # the workspace's files and folders
    present: frozenset[str] = frozenset()  # the quoted values a file of the workspace holds
    shown: tuple[str, ...] | None = None  # the lines the last command printed (`shown_lines`); None: none ran
    status: str | None = None  # "Done." after a success with no line to state (an EDIT, a silent command); "Not
    # applied." after changes the terminal did not keep (`NOT_APPLIED`)
    shown_whole: bool = False  # ``shown`` is short enough to be stated whole (`states_whole`), as training states it
    earlier: tuple[str, ...] = ()  # EARLIER: files earlier turns named, for a command's arguments (`earlier_paths`)
    resolved: tuple[str, ...] = ()  # RESOLVED: the files the request names by their basename or in another case

    def escaped(self) -> EscapedTargets:
        """The same in the JSON-escaped byte form an open string is in (what `CopyBias` matches)."""
        names = tuple(escape_for_json_string(n) for n in self.names)
        quoted = frozenset(escape_for_json_string(n) for n in self.quoted)
        lines = tuple(escape_for_json_string(line) for line in self.lines if line not in self.names)
        paths = frozenset(escape_for_json_string(p) for p in self.paths)
        present = frozenset(escape_for_json_string(v) for v in self.present)
        shown = None if self.shown is None else tuple(escape_for_json_string(line) for line in self.shown)
        status = None if self.status is None else escape_for_json_string(self.status)
        earlier = tuple(escape_for_json_string(n) for n in self.earlier if n not in self.names)
        resolved = tuple(escape_for_json_string(n) for n in self.resolved if n not in self.names)
        return EscapedTargets(names, quoted, lines, paths, present, shown, status, self.shown_whole, earlier, resolved)


@dataclass(frozen=True)
class EscapedTargets:
    names: tuple[bytes, ...]
    quoted: frozenset[bytes]
    lines: tuple[bytes, ...] = ()
    paths: frozenset[bytes] = frozenset()
    present: frozenset[bytes] = frozenset()
    shown: tuple[bytes, ...] | None = None
    status: bytes | None = None
    shown_whole: bool = False
    earlier: tuple[bytes, ...] = ()
    resolved: tuple[bytes, ...] = ()


def output_lines(text: str) -> list[str]:
    """The lines of a command's output a MSG may quote whole: a few words, each with a letter or digit and
    two characters or more (not the terminal's ``[exit code 0]``, not ``M notes.txt``); a line led by a hash
    or a number is offered without it too ("Last commit: " + "Add the fetch_pirates script", the line
    ``3f9e2a1 Add the fetch_pirates script``)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        words = line.split()
        if 2 <= len(words) and len(line) <= 80 and not (line.startswith("[") and line.endswith("]")) \
                and all(len(w) >= 2 and _WORD_TEXT.search(w) for w in words):  # fmt: skip
            out.append(line)
            if len(words) >= 3 and _LINE_ID.fullmatch(words[0]):  # its text after a hash or a number
                out.append(line.split(None, 1)[1])
    return out


def tool_status(result: str) -> str | None:
    """The closing MSG after a tool result that showed nothing to state: "Done." (a command that succeeded, an
    EDIT that wrote), "Failed: exit code 1.", "Timed out."; None for any other result (a refused EDIT)."""
    status = TOOL_STATUS.search(result)
    if status is None:
        return "Done." if result.startswith("wrote ") else None
    if status.group(2) is None:
        return "Timed out."
    return "Done." if status.group(2) == "0" else f"Failed: exit code {status.group(2)}."


def shown_lines(result: str) -> list[str]:
    """What a closing MSG may state after the tool result ``result``: the lines (stripped, non-empty) a command
    that succeeded printed; none after an EDIT ("wrote ..."), a failure or a timeout."""
    status = TOOL_STATUS.search(result)
    if status is None or status.group(2) != "0":
        return []
    return [line.strip() for line in result[: status.start()].splitlines() if line.strip()]


def states_whole(lines: list[str]) -> bool:
    """Whether a closing MSG states these output lines whole: at most ``SHOWN_LINES`` lines and ``SHOWN_CHARS``
    characters (`data.terminal.dataset.closing_message` writes "It shows: " and all of them; a longer output
    closes with its status)."""
    return 0 < len(lines) <= SHOWN_LINES and sum(map(len, lines)) <= SHOWN_CHARS


def copy_targets(sources: Iterable[str], workspace_names: Iterable[str] = (), root: str | os.PathLike | None = None,
                 earlier: Iterable[str] = ()) -> CopyTargets:  # fmt: skip
    """`copy_candidates`, which of them the user quoted, the output lines of the commands since
    (``sources[1:]``), the lines the last one printed (`shown_lines`) and, given the workspace's ``root``, which
    quoted values its files hold. ``earlier``: the conversation before the request (`earlier_sources`), whose
    workspace files are EARLIER names where the request names nothing but a number ("show the last 3 lines of it":
    `earlier_paths`); not for the message after an output, which states that output."""
    sources, workspace_names = list(sources), list(workspace_names)
    names = copy_candidates(sources, workspace_names)
    # the action on a request that names nothing but a number: "how many lines is it?"
    files = tuple(earlier_paths(earlier, workspace_names)) if len(sources) == 1 and all(n.isdigit() for n in names) else ()
    quoted = {next(g for g in m.groups() if g is not None) for text in sources for m in _QUOTED.finditer(text)}
    lines = list(dict.fromkeys(line for text in sources[1:] for line in _capped(output_lines(text))))
    present = _held_by_files(quoted, root, workspace_names) if root is not None and quoted else frozenset()
    last = shown_lines(sources[-1]) if len(sources) > 1 else None
    shown = None if last is None else tuple(last[:MAX_LINES])
    # a failure's output is the model's to state (the failing test); only a success with no line to state is "Done."
    status = "Done." if shown == () and tool_status(sources[-1]) == "Done." else None
    if len(sources) > 1 and NOT_APPLIED.search(sources[-1]):  # its note follows the status: no line is shown
        status = "Not applied."
    resolved = tuple(resolved_paths(sources[0], workspace_names)) if sources else ()
    return CopyTargets(tuple(names), frozenset(quoted), tuple(lines), frozenset(workspace_names), present, shown, status,
                       last is not None and states_whole(last), files, resolved)  # fmt: skip


def _capped(lines: list[str]) -> list[str]:
    """One output's lines a MSG may quote: a long output's first and last ones (what a message quotes)."""
    return lines if len(lines) <= MAX_LINES else lines[: MAX_LINES * 3 // 4] + lines[-(MAX_LINES // 4) :]


def _held_by_files(values: set[str], root: str | os.PathLike, names: list[str], max_files: int = 200,
                   max_bytes: int = 256 * 1024) -> frozenset[str]:  # fmt: skip
    """The ``values`` one of the files ``names`` (under ``root``; the first ``max_files`` of at most
    ``max_bytes``) holds. A link, or a path that leads out of ``root``, is not read: the model may have made it."""
    held: set[str] = set()
    top = Path(root).resolve()
    for name in names[:max_files]:
        path = Path(root, name)
        try:
            if path.is_symlink() or not path.resolve().is_relative_to(top) or not path.is_file() \
                    or path.stat().st_size > max_bytes:  # fmt: skip
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        held.update(v for v in values if v in text)
    return frozenset(held)


class CopyBias:
    """Bonuses for tokens that copy a name (see the module docstring).

    Args:
        token_bytes: every token id's raw bytes (None for special tokens), as `TokenTable.token_bytes`.
        bonus: logit bonus of a token that continues a name being copied.
        start_bonus: logit bonus of a token that starts copying a name.
        quoted_bonus: logit bonus of a token that starts copying a value the user quoted.
    """

    def __init__(self, token_bytes: list[bytes | None], bonus: float = DEFAULT_BONUS,
                 start_bonus: float = DEFAULT_START_BONUS, quoted_bonus: float = DEFAULT_QUOTED_BONUS) -> None:  # fmt: skip
        self.bonus, self.start_bonus, self.quoted_bonus = bonus, start_bonus, quoted_bonus
        self._all = {data: i for i, data in enumerate(token_bytes) if data}
        self._ids = {data: i for data, i in self._all.items() if _WORD.search(data)}
        self._longest = max((len(data) for data in self._all), default=1)
        # what a locked copy restricts: tokens that could go on with a name, and (inside a quoted phrase)
        # those that bring a space and a word
        self.name_tokens = sorted(i for data, i in self._all.items() if _NAME_START.match(data))
        self.all_tokens = sorted(self._all.values())
        self.closing_tokens = sorted(i for data, i in self._all.items() if data.startswith(b'"'))
        self.digit_tokens = sorted(i for data, i in self._all.items() if data[:1].isdigit())
        # what parts a quoted value from the next (`s/a/b/`): the `/` alone, or with the quote that closes
        self.slash_tokens = sorted(i for data, i in self._all.items() if data in (b"/", b"/'", b"/\\", b'/\\"'))
        # what closes a quote: a token that starts with it, or its first byte (a `\\"` token may not exist)
        self.quote_tokens = {q: sorted(i for data, i in self._all.items() if data.startswith(q) or q.startswith(data))
                             for q in (b"'", b'\\"')}
        self.word_tokens = sorted(i for data, i in self._all.items() if _WORD.match(data))
        self.letter_tokens = sorted(i for data, i in self._all.items() if len(data) == 1 and data.isalpha())  # `s` of `s/`
        self._closing_cache: dict = {}  # `_refused_in_closing`, per state
        # the name bytes a token starts with, where they hold a `.`, `/` or `_` (what may make a word a file's name)
        self._all_leads = {i: m.group() for data, i in self._all.items() if (m := _LEADING_NAME.match(data))}
        self._name_leads = {i: lead for i, lead in self._all_leads.items() if _NAME_PUNCT.search(lead)}
        # each token's runs of digits that may be a number (where, the digits, whether bytes follow them): not those
        # inside a word of the token ("v2")
        runs = {i: [(m.start(), m.group(), m.end() < len(data)) for m in _TOKEN_DIGITS.finditer(data)
                    if m.start() == 0 or not _WORD_BYTE.match(data[m.start() - 1 : m.start()])]
                for data, i in self._all.items()}  # fmt: skip
        self._digit_runs = {i: r for i, r in runs.items() if r}
        # what ends a SHOWN message: the string's closing quote, or "." and it (tokens may go on into the JSON)
        self.ending_tokens = {end: sorted(i for data, i in self._all.items() if data.startswith(end)) for end in (b'"', b'."')}
        spaced_words = {i for data, i in self._all.items() if _SPACED_WORD.match(data)}
        self.phrase_word_tokens = sorted(spaced_words.union(self.word_tokens))
        self.phrase_tokens = sorted(spaced_words.union(self.name_tokens))

    def _tokens_starting(self, continuation: bytes, table: dict[bytes, int] | None = None) -> list[int]:
        """Tokens whose bytes are a prefix of ``continuation`` (of ``table``: by default those with a letter
        or digit)."""
        table = self._ids if table is None else table
        found = []
        for end in range(1, min(len(continuation), self._longest) + 1):
            token = table.get(continuation[:end])
            if token is not None:
                found.append(token)
        return found

    def _matches(self, value: bytes, names: Iterable[bytes], spaced: bool = False) -> tuple[list[tuple[bytes, bytes]], int]:
        """[(name, what may follow ``value`` to copy it)], and how many bytes of a name ``value`` already
        holds (0 for a start). A name the string already holds is not offered again (a copy never loops)."""
        names = [name for name in names if not _holds(value, name)]
        found, copied = [], 0
        for name in names:
            for size in range(min(len(value), len(name) - 1), 0, -1):
                if value.endswith(name[:size]) and _starts_a_name(value, len(value) - size):
                    found.append((name, name[size:]))
                    copied = max(copied, size)
                    break
        if found:
            return found, copied
        if value and _WORD.match(value[-1:]) and not _starts_a_name(value, len(value)):
            return [(name, b" " + name) for name in names], 0
        if spaced and value[-1:] in _SPACED_AFTER:  # prose: "untracked: a.txt", "It prints: hi"
            return [(name, name) for name in names] + [(name, b" " + name) for name in names], 0
        return [(name, name) for name in names], 0

    def continuations(self, value: bytes, names: list[bytes]) -> tuple[list[bytes], int]:
        """(what may follow ``value`` to copy a name, how many bytes of a name it already holds: 0 for a start)."""
        found, copied = self._matches(value, names)
        return [continuation for _, continuation in found], copied

    def bonuses(self, value: bytes, names: Iterable[bytes], quoted: frozenset[bytes] = frozenset(), spaced: bool = False
                ) -> tuple[dict[int, float], list[int] | None]:  # fmt: skip
        """({token id: logit bonus}, the tokens a locked copy keeps or None) for the open string ``value``
        (raw bytes, JSON-escaped form). Locked: of the `name_tokens`, only those kept may follow.
        At a start, the names in ``quoted`` get ``quoted_bonus``. ``spaced`` (prose, a MSG): after a `:` or a `,` a
        copy starts there or after its space."""
        return self._bias(value, list(names), quoted, spaced=spaced)[:2]

    def _bias(self, value: bytes, names: list[bytes], quoted: frozenset[bytes], lock_after: int = LOCK_AFTER,
              spaced: bool = False):  # fmt: skip
        """`bonuses`, plus what `field_bonuses` picks its restriction by: the matches, the bytes copied,
        and what just ended there: "quoted" (a quoted value), "number", "name" or None."""
        found, copied = self._matches(value, names, spaced)
        finished = [] if copied else [n for n in names if value.endswith(n) and _starts_a_name(value, len(value) - len(n))]
        if any(n in quoted for n in finished):  # a quoted value just ended: no bonus, its closing quote is the model's
            return {}, [], found, copied, "quoted"
        if finished:  # a copy just ended here (no longer name goes on from it): the word ends, a name may start
            found = [(name, c) for name, c in found if name not in quoted]
        out: dict[int, float] = {}
        for name, continuation in found:
            bonus = self.bonus if copied else self.quoted_bonus if name in quoted else self.start_bonus
            # a quoted value may start with what no name does ("# Notes"): its first token gets the bonus too
            table = self._all if name in quoted and not copied and not continuation.startswith(b" ") else None
            for token in self._tokens_starting(continuation, table):
                out[token] = max(out.get(token, bonus), bonus)
        if finished:
            return out, [], found, copied, "number" if all(n.isdigit() for n in finished) else "name"
        if not (found and copied >= lock_after):
            return out, None, found, copied, None
        return out, sorted({t for _, c in found for t in self._tokens_starting(c, self._all)}), found, copied, None

    def field_bonuses(self, value: bytes, targets: EscapedTargets, field: str, written: bytes
                      ) -> tuple[dict[int, float], list[int] | None, list[int]]:  # fmt: skip
        """`bonuses` for the open string ``value`` of ``field``, ``written`` being the action's text so far:
        (bonuses, the tokens a locked copy keeps or None, the tokens the lock restricts: of these, only the
        kept ones may follow). The slot comes from the grammar (see the module docstring): the field, and in a
        command or a content whether a quote the string opened is still open."""
        done = _CLOSED.findall(written)
        # EARLIER and RESOLVED: a command's arguments (not its program, an EDIT's path, a message or a quote's text)
        arguments = (*targets.earlier, *targets.resolved) if field == "command" and b" " in value else ()
        names = [n for n in (*targets.names, *arguments) if not any(_holds(closed, n) for closed in done)]
        quoted = targets.quoted
        if field == "path":  # PATH: one of the request's names without a space, from its first byte to its closing quote
            path = self._one_of(value, [n for n in names if b" " not in n and not n.isdigit()], self.closing_tokens)
            if path is not None:
                return path
        if field == "message" and targets.status is not None and targets.status.startswith(value):
            return {}, self._forced(targets.status[len(value) :]), self.all_tokens  # STATUS: nothing to state
        if field == "message" and value.startswith(_SHOWN_MARK):  # SHOWN: the last output's lines, nothing else
            shown = self._shown(value[len(_SHOWN_MARK) :], targets.shown or (), targets.shown_whole)
            if shown is not None:
                return {}, shown, self.all_tokens
        if field == "message":  # an output line is quoted text: copied whole, at quoted_bonus
            names += [line for line in targets.lines if not any(_holds(closed, line) for closed in done)]
            quoted = quoted | frozenset(targets.lines)
            out, kept, found, copied, ended = self._bias(value, names, quoted, MSG_LOCK_AFTER, spaced=True)
            restrict = self._restriction(value, kept, found, copied, ended, targets.lines, names, quoted)
            if kept is None and targets.shown is not None:  # a closing: no stated output without lines, no new number
                numbers = frozenset(n for n in targets.names if n[:1].isdigit())  # "12", "3.11.2"
                known = frozenset((*targets.names, *targets.paths))
                mark = targets.shown == () and _SHOWN_MARK.startswith(value)
                refused = self._refused_in_closing(value, numbers, known, mark)
                if refused is not None:
                    return out, *refused
            return out, kept, restrict
        opened, whole_value = _open_quote(value, shell=field == "command") if field in ("command", "content") else None, value
        if opened is not None:  # QUOTED: inside a quote the string opened, the slot starts after it
            before, value = value[:opened], value[opened:]
            closing = self.quote_tokens[b'\\"' if before.endswith(b'\\"') else b"'"]
            # a file's name in a quote is the quote's whole text (`-name "a.py"`), never after a word in it (`'def `);
            # a quote holds what the user typed, not a path found for it
            names = [n for n in names if not _holds(before, n) and (n in quoted or not _FILE.search(n) or n.startswith(value))
                     and n not in targets.resolved]  # fmt: skip
            values = [n for n in names if n in quoted and not _holds(value, n)]
            whole = [n for n in names if n in quoted and value.endswith(n) and _starts_a_name(value, len(value) - len(n))
                     and not _holds(value[: -len(n)], n)]
            if whole:  # a quoted value is whole: the quote closes (in a command, a `/` may part it from the next)
                ends = [*closing, *(self.slash_tokens if field == "command" else ())]
                longer = [(n, n[len(w) :]) for w in whole for n in values if n.startswith(w)]  # or a longer one goes on
                out = {t: self.bonus for _, c in longer for t in self._tokens_starting(c)}
                return out, sorted({*ends, *(t for _, c in longer for t in self._tokens_starting(c, self._all))}), self.all_tokens
            if any(_holds(value, n) for n in names if n in quoted):  # the quote holds the user's text, not names
                if not values and value.endswith(b"/"):  # every value is in: it closes (after a flag: `s/a/b/g`)
                    return {}, [*closing, *(self.letter_tokens if _OPERATOR.match(value) else ())], self.all_tokens
                if not values and _OPERATOR.match(value) and _FLAG.search(value):  # its flag is in: the quote closes
                    return {}, closing, self.all_tokens
                names = values
            starts = [n for n in values if n in targets.present] or values  # what the workspace holds comes first
            # where a quote may take the text the work dir holds and a new one (a substitution), one letter before a
            # `/` (`s/`) is the quote's own syntax
            operators = field == "command" and len(values) > 1 and any(n in targets.present for n in starts)
            if starts and (not value or value.endswith(b"/") or (operators and len(value) == 1 and value.isalpha())):
                return self._quoted_start(value, starts, closing, operators)
        elif field == "command" and b" " not in value:  # PROGRAM: a command starts with a program, not quoted text
            names = [n for n in names if n not in quoted]
        elif field == "command" and (redirect := _REDIRECT.search(value)) is not None:  # PATH: a redirect's file
            target, read = redirect.group("target"), value[: redirect.start()]
            lead = b"" if target or redirect.group("space") else b" "  # `>>` + " plum.txt"
            # a file the command does not read already (`wc -w a.txt > ` writes no a.txt)
            files = [n for n in names if _FILE.search(n) and b" " not in n and n not in quoted and not _holds(read, n)]
            if not target:  # where it starts, a bonus (`>&2`, `> /dev/null` stay the model's to write)
                return {t: self.start_bonus for n in files for t in self._tokens_starting(lead + n)}, None, self.name_tokens
            # begun: it is one of them, whole; where it is one already, a longer one may go on or it ends
            path = self._one_of(target, files)
            if path is not None:
                return path if target not in files else (*path[:2], self.name_tokens)
            if target not in files:  # begun as no named file (`/dev/null`): the model's
                return {}, None, self.name_tokens
            # whole, and no longer one: the one rule below ends its word
        out, kept, found, copied, ended = self._bias(value, names, quoted, LOCK_AFTER)
        restrict = self._restriction(value, kept, found, copied, ended, (), names, quoted)
        line_done = value.endswith(b"\\n") and value[:-2] in quoted
        if field == "content" and opened is None and (value in quoted or line_done):
            unused = [n for n in names if n in quoted and not _holds(value, n)]
            if unused and line_done:  # another value may be the next line, or it goes to another file: the model's
                return {}, None, self.all_tokens
            if not unused:  # a content that is a quoted value (the last one left) is that line: a newline, the end
                ends = self.closing_tokens if line_done else sorted({*self._tokens_starting(b'\\n"', self._all), *self.closing_tokens})
                return {}, ends, self.all_tokens
        if kept and field == "command" and b" " in whole_value \
                and found and all(_FILE.search(n) for n, _ in found):  # fmt: skip
            restrict = self.all_tokens  # a file's name begun after the program is finished ("cat app" + " x" for app.py)
        return out, kept, restrict

    def _refused_in_closing(self, value: bytes, numbers: frozenset[bytes], names: frozenset[bytes], mark: bool):
        """(kept, restrict) for a closing MSG's free text after a command, or None: with ``mark`` (no line to state),
        no token may take ``value`` two bytes or more into "It shows"; a number that starts at a word's start is one
        of ``numbers`` (those the request and the outputs since hold: "6 Python files." after an `ls` of two files
        cannot be written), and one begun goes on until it is whole; a word becomes a file's name (a `.`, `/` or `_`
        then a letter or digit) only as the start of one of ``names`` (the request's, the outputs', the work dir's:
        no "untracked: melon.txt" after an `ls` of app.py). Made once per state: the processor caches a restriction
        by its list's identity."""
        tail = _TRAILING_DIGITS.search(value)
        run = tail.group() if tail and not _WORD_BYTE.match(value[tail.start() - 1 : tail.start()]) else None
        at_start = not value or not _WORD_BYTE.match(value[-1:])
        word = _TRAILING_NAME.search(value).group()
        key = (value if mark else b"", run, at_start, numbers, word if not _NAME_MARK.search(word) else None, names)
        if key in self._closing_cache:
            return self._closing_cache[key]
        refused: set[int] = set()
        if mark:
            refused.update(i for data, i in self._all.items() if len(value + data) >= 2
                           and (_SHOWN_MARK.startswith(value + data) or (value + data).startswith(_SHOWN_MARK)))  # fmt: skip
        for token, runs in self._digit_runs.items():
            for start, digits, more in runs:
                if start == 0 and run is None and not at_start:
                    continue  # digits that go on with a word ("file" + "2")
                whole = (run or b"") + digits if start == 0 else digits
                if not any(n.startswith(whole) for n in numbers) or (more and not _ends_a_number(whole, numbers)):
                    refused.add(token)
                    break
        if not _NAME_MARK.search(word):  # a word that is no name yet: it becomes one only as a copy
            # a word that ends in a `.`, `/` or `_` becomes a name with any letter or digit; else only with those
            for token, lead in (self._all_leads if _NAME_PUNCT.search(word) else self._name_leads).items():
                grown = (word + lead).rstrip(b".,:/-")
                if _NAME_MARK.search(grown) and not any(n.startswith(grown) for n in names):
                    refused.add(token)
        if run is not None and not _ends_a_number(run, numbers):  # a number begun and not whole: its digits go on
            kept = sorted(t for t in self.digit_tokens if t not in refused)
            result = (kept, self.all_tokens)
        elif refused:
            result = ([], sorted(refused))
        else:
            result = None
        self._closing_cache[key] = result
        return result

    def _forced(self, rest: bytes) -> list[int]:
        """The tokens that go on with ``rest`` and then the string's end (a STATUS message)."""
        kept = set(self._tokens_starting(rest + b'"', self._all))
        kept.update(self.ending_tokens.get(rest + b'"', ()))  # a token that goes on into the JSON (`."}`)
        return sorted(kept)

    def _shown(self, rest: bytes, lines: tuple[bytes, ...], whole: bool = False) -> list[int] | None:
        """The tokens that may follow a SHOWN message's ``rest`` (what follows "It shows"): ": ", then ``lines`` in
        their order, each whole and at most once, joined by ", ", then "." (none after a line that ends a sentence)
        and the string's end. With ``whole`` every line, from the first (the form training writes); otherwise which
        lines is the model's. None where ``rest`` has left that form (the model wrote "It showsX" in one token)."""
        lead = SHOWN_PREFIX[len(_SHOWN_MARK) :].encode()  # b": "
        if whole:  # one message, as training writes it: the model may only go on with it
            full = lead + b", ".join(lines) + (b"" if lines[-1].endswith(_SENTENCE_ENDS) else b".")
            if full.startswith(rest):
                return self._forced(full[len(rest) :])
            return [] if rest.startswith(lead) or lead.startswith(rest) else None
        if len(rest) < len(lead):
            if not lead.startswith(rest):
                return None
            if not lines:
                return sorted(self.ending_tokens[b'"'])  # nothing was printed: the message ends as it is
            return sorted({t for line in lines for t in self._tokens_starting(lead[len(rest) :] + line, self._all)})
        if not rest.startswith(lead):
            return None
        rest = rest[len(lead) :]

        def ends(j: int) -> list[bytes]:  # what may follow the whole line j
            return [b'"' if lines[j].endswith(_SENTENCE_ENDS) else b'."', *(b", " + line for line in lines[j + 1 :])]

        continuations: set[bytes] = set()
        todo = [(0, 0)]  # (where an item starts in rest, the first line it may be)
        while todo:
            at, first = todo.pop()
            tail = rest[at:]
            for j in range(first, len(lines)):
                line = lines[j]
                if len(tail) < len(line):
                    if line.startswith(tail):
                        continuations.update(line[len(tail) :] + end for end in ends(j))
                    continue
                if not tail.startswith(line):
                    continue
                after = tail[len(line) :]
                if after.startswith(b", "):
                    todo.append((at + len(line) + 2, j + 1))
                continuations.update(end[len(after) :] for end in ends(j) if end.startswith(after) and end != after)
        kept: set[int] = set()
        for continuation in continuations:
            kept.update(self._tokens_starting(continuation, self._all))
            if continuation in self.ending_tokens:
                kept.update(self.ending_tokens[continuation])
        if not lines and not rest:
            kept.update(self.ending_tokens[b'"'])
        return sorted(kept)

    def _quoted_start(self, value: bytes, starts: list[bytes], closing: list[int], operators: bool):
        """Where a quote's text starts (or a ``/`` in it): one of ``starts`` begins. With ``operators``, a
        one-letter operator before a ``/`` (``s/``, ``y/``) may come first, at the values' bonus (which of them is
        the model's choice): it is the quote's own syntax, not a copy, and after it a ``/`` may follow."""
        text = value.rsplit(b"/", 1)[-1] if value.endswith(b"/") else value
        ends = [n[len(text) :] for n in starts if n.startswith(text) and n != text]
        kept = {t for c in ends for t in self._tokens_starting(c, self._all)}
        bonus = self.bonus if text else self.quoted_bonus
        out = {t: bonus for c in ends for t in self._tokens_starting(c)}
        if operators and not value:  # the operator's letter
            kept.update(self.letter_tokens)
            out.update(dict.fromkeys(self.letter_tokens, bonus))
        elif operators and len(value) == 1:
            kept.update(self.slash_tokens)
        if text in starts:  # a one-letter value, whole: its quote may close
            kept.update(closing)
        return out, sorted(kept), self.all_tokens

    def _one_of(self, value: bytes, names: list[bytes], end_tokens: list[int] = (), lead: bytes = b""):
        """A PATH slot holding ``value``: each token goes on with one of ``names`` (``lead`` first), and where
        ``value`` is one of them, ``end_tokens`` may follow; None where none goes on."""
        ends = [lead + n[len(value) :] for n in names if n.startswith(value) and n != value]
        kept = {t for c in ends for t in self._tokens_starting(c, self._all)}
        if value in names:
            kept.update(end_tokens)
        if not kept:
            return None
        bonus = self.bonus if value else self.start_bonus
        return {t: bonus for c in ends for t in self._tokens_starting(c)}, sorted(kept), self.all_tokens

    def _restriction(self, value: bytes, kept, found, copied: int, ended: str | None, lines, names,
                     quoted: frozenset[bytes]) -> list[int]:  # fmt: skip
        """The tokens a lock restricts: those that could go on with a name; where a word ended, those that start
        one; all of them where no other token may end the copy (a path, a number, an output line)."""
        if kept == []:  # a copy just finished: the word ends; after a quoted value, no word follows
            # (a number ends at a non-digit: `sed -n '4p'`)
            return {"quoted": self.phrase_word_tokens, "number": self.digit_tokens}.get(ended, self.word_tokens)
        if kept is None:
            return self.name_tokens
        if any(n in lines for n, _ in found):  # an output line is quoted whole ("hello from app" + "]:", + ".py")
            return self.all_tokens
        if _PATH_PART.search(value[-copied:]):  # a path half copied ("flag/customer_patch") is finished
            return self.all_tokens
        if value[-copied:].isdigit() and all(n.isdigit() for n, _ in found) and value[-copied:] not in names:
            return self.all_tokens  # so is a number: the "1" of "10" is another number (`head -n 1`)
        if all(n in quoted for n, _ in found):  # a quoted value is copied whole
            return self.all_tokens
        if any(b" " in c for _, c in found):  # a phrase is copied through its spaces
            return self.phrase_tokens
        return self.name_tokens


def _ends_a_number(digits: bytes, numbers: frozenset[bytes]) -> bool:
    """Whether a run of ``digits`` may end here: it is one of ``numbers`` or one goes on from it with a non-digit
    (the "3" of "3.11.2")."""
    return any(n.startswith(digits) and not n[len(digits) : len(digits) + 1].isdigit() for n in numbers)


def _open_quote(value: bytes, shell: bool = True) -> int | None:
    """Where the text of a quote ``value`` (a JSON-escaped command or content) opened and has not closed starts,
    or None. A quote opens quoted text after a space, ``(``, ``=``, ``[``, ``,``, ``:`` or ``{`` (``echo '``,
    ``print(\\"``; not the ``'`` of ``don't``) and closes at the same quote, unless a backslash escapes it (the
    shell's ``"a\\"b"``; in code, ``shell`` False, any quote: Python's ``'it\\'s'``; the shell's single quote has no
    escapes)."""
    quote, start, at, escaped = None, None, 0, False
    while at < len(value):
        step = 2 if value[at : at + 1] == b"\\" else 1
        char = value[at : at + step]
        if quote is None and char in (b"'", b'\\"') and at > 0 and value[at - 1] in _QUOTE_OPENERS:
            quote, start = char, at + step
        elif quote is not None and char == quote and not (escaped and (quote == b'\\"' or not shell)):
            quote, start = None, None
        escaped = char == b"\\\\" and not escaped  # a backslash (JSON: two) escapes what follows it
        at += step
    return start


def _starts_a_name(value: bytes, at: int) -> bool:
    """Whether a name may begin at byte ``at`` of ``value``: at its start, after a separator or after an escaped
    newline or tab (a content's next line)."""
    return at == 0 or value[at - 1 : at] in _BEFORE_NAME or value[at - 2 : at] in (b"\\n", b"\\t")


def _holds(text: bytes, name: bytes) -> bool:
    """Whether ``text`` holds ``name`` as a whole span (``a.txt`` is not in ``data.txt``, nor ``x`` in ``xs``)."""
    at = text.find(name)
    while at >= 0:
        end = at + len(name)
        if _starts_a_name(text, at) and not _WORD.match(text[end : end + 1]):
            return True
        at = text.find(name, at + 1)
    return False


def earlier_paths(texts: Iterable[str], workspace_names: Iterable[str]) -> list[str]:
    """The workspace's files that ``texts`` (the conversation before the request) name, as a path or as a file's name
    the workspace holds in one folder only: what "it" or "that file" in the request may stand for. Only files the
    work dir has (no folder: ``tests`` is also what `cargo test` runs), never a quoted value or a number: those are
    the request's own to give."""
    paths = _workspace_files(workspace_names)
    by_name: dict[str, set[str]] = {}
    for path in paths:
        by_name.setdefault(path.rsplit("/", 1)[-1], set()).add(path)
    found: set[str] = set()
    for text in texts:
        for match in _TOKEN.finditer(text):
            word = match.group().removeprefix("./").rstrip(".-/")  # "./a.py:3:", "a.py." at a sentence's end
            if word in paths:
                found.add(word)
            elif len(by_name.get(word, ())) == 1:
                found.update(by_name[word])
    return sorted(found, key=lambda n: (-len(n), n))


def _last_request(messages: list[dict]) -> int | None:
    """The index of the last user message, or None."""
    return max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)


def earlier_sources(messages: list[dict]) -> list[str]:
    """The conversation before the last user message: the earlier requests, actions and tool results (`earlier_paths`
    reads the paths they name)."""
    last_user = _last_request(messages) or 0
    return [m["content"] for m in messages[:last_user] if m.get("role") != "system" and isinstance(m.get("content"), str)]


def copy_sources(messages: list[dict]) -> list[str]:
    """What a reply to ``messages`` may copy from: the last user message and every tool result after it."""
    last_user = _last_request(messages)
    if last_user is None:
        return []
    return [m["content"] for m in messages[last_user:] if m.get("role") in ("user", "tool") and m.get("content")]
