"""Copy bias: while an action's string is open, favour tokens that copy a name the conversation gave.

A terminal request names files, symbols and phrases the model may never have seen ("count the lines
of harbor_notes.txt"). A small recurrent model with an untied head cannot produce a token it was
never trained to output, however well it learned *where* a name goes. This bias does the copying
for it: the model still decides what to write, and tokens that copy one of the conversation's
*names* get a bonus on their logits.

Names (:func:`copy_candidates`) are the spans of the user's request and of the command outputs since
that look like what a command takes: quoted text, words with ``_ . / -`` or a digit or an inner
capital (``harbor_notes.txt``, ``scripts/run.py``, ``BudgetArchive``, ``12``), and request words that
name a file or folder of the workspace. A path is one name: its basename alone is not offered (``wc -c
run.py`` fails where the file is ``scripts/run.py``; on the development split, offering the parts cost
0.03 of first-action success). Plain words of a sentence ("how", "many", "lines") are not names:
copying them is the model's own decision.

- copy start: after a separator (or at the start of the string) the tokens that start a name get
  ``start_bonus``; right after a word, the tokens that bring a space and start a name (" harbor");
- mid-copy: when the open string ends with the beginning of a name (and that beginning follows a
  space, a quote, a slash, ``=``, ``(``, ``:`` or ``,``: the ``c`` of ``wc -c`` begins no name), the tokens that continue it get ``bonus``; once its first byte (``LOCK_AFTER``; 3 in a
  MSG, where the "t" of "the" must not turn into "tests/...") is written, the copy is locked: a token that could be part of a name (it starts with a letter, a digit
  or one of ``_ . / -``) must continue this one; what ends a word (a quote, a space) stays allowed. A
  small model otherwise drifts back into a name it remembers halfway through ("check_pa" + "yments"
  for check_patches.py, "data/bea" + ".csv" for data/beacon.csv) or after one letter ("mo" + "_panel.txt"
  for moss_image.txt, "p" + "ier/" for parser/: locking at the third byte, 0.886 on the development split,
  at the first 0.917).

Right after a copy finishes (and no longer name goes on from it), the word ends: a token that would go on
with it is refused ("call mom" + "ortar"; a ``/`` or ``.`` may follow). After a quoted value no word may
follow either (not "call mom" + " ok") and nothing gets a bonus, so the closing quote is the model's (a start bonus there once turned ``echo 'call mom`` + ``' >> notes.txt`` into ``echo 'call
mom notes.txt``); after another name, the next name may start (``head -n 5`` + `` creek/page.py``).
A command's first word copies no quoted value (it is a program: ``call mom notes.txt`` is no command).
A name the action already holds (in the open string or in a string it closed) is not offered again, so
a copy never repeats itself and each of a request's values goes to one slot: once an EDIT's path holds
``plum.txt``, its content starts with the request's other value, and ``sed 's/old/`` offers the new word.

Stricter locks where a half copy is never meant:

- an EDIT's ``path``, where the request names a file: it is one of the request's names without a space,
  from its first byte to its closing quote (a quoted phrase is content, not a file name);
- a quoted phrase is copied through its spaces (" set" may not cut "fast oyster ready" short), and a
  name whose copied part holds a ``/``, ``_`` or ``.`` to its end ("flag/customer_patch" is no file;
  "cat" may still stop short of "catalog.py").

- a number begun is finished (``head -n 1`` for "10 lines" is another count), unless what is copied is a
  number the conversation names too;
- a file's name begun after a command's program (``cat app`` for app.py: a name with ``/`` or ``.``) is
  finished: ``cat app pantry/app.py`` was no file (the program itself may stop short: ``cat`` of
  catalog.py); an output line a MSG began to quote is quoted whole;
- sed's script begins with its own ``s``, not a copy (the ``s`` of 'stormy' locked ``sed -i 'stormy/ready/'``);
- a quote that opens a command's argument (after a space; not sed's script) starts one of the request's
  quoted values the action has not used, locked until it is whole, and then closes (``echo 'call mom`` +
  ``.txt`` was written); so does the content of an EDIT that creates a file other than Python code, which
  then ends its line and closes (not ``slow wave ok])\n    ready = ...``). The model otherwise writes a word
  it remembers first and copies after it (``echo 'fuzzy fast oyster ready'`` for "fast oyster ready"; ``f``
  starts both);
- the text a new Python script prints (``print('`` opening its content) is the user's: a value they quoted,
  or the word after a verb of printing ("prints the word purple", "prnt fast"), whole, and then the literal
  closes. Every model wrote ``print('smooth')`` whatever was asked (create_script 0 on every split; with
  this, 5 of 6 on the development split);
- the file a redirect writes to (``>> ``, ``> ``) is one the conversation names, where it names one:
  ``echo 'heavy hook ok' >> entry_fence.txt`` went to a file of the workspace the user never named;
- sed's ``s/OLD/NEW/``, given the workspace (``copy_targets(..., root=)``): OLD is a quoted value one of
  its files holds, NEW another quoted value, and the script then closes. The model swapped them
  (``s/sturdy/table/`` for "replace 'table' with 'sturdy'"), and a pattern no file holds changes nothing.

A value the user quoted gets ``quoted_bonus`` (above ``start_bonus``) where a copy starts: quoting is the
user saying "this exact text" (``echo '`` + ``heavy hook ok``, not a word the model remembers). In a MSG,
the lines the commands since printed count as quoted too (:func:`output_lines`): "It prints: " + the line
the script printed, not one the model remembers. :class:`CopyTargets` (from :func:`copy_targets`) carries
the names, which of them were quoted, and the output lines.

Only tokens with a letter or digit get a bonus: where a name ends (a quote, a brace, a space) stays
the model's decision. Names are matched in the form they take inside a JSON string (escaped), the
form the open string is in. The bias never makes a token allowed: the grammar's mask comes after it.

    bias = CopyBias(token_bytes)                                   # once per tokenizer
    names = copy_candidates(["how many lines in harbor_notes.txt?"])   # ['harbor_notes.txt']
    bonuses, locked = bias.bonuses(b"wc -l", [escape_for_json_string(n) for n in names])  # {id of " harbor": 6.0, ...}
    targets = copy_targets(["append 'heavy hook' to a.txt"])         # names, and which were quoted
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
# A quoted span: its quotes are not inside a word (the ' of "I'm" opens nothing)
_QUOTED = re.compile(r"""(?<![A-Za-z0-9])(?:'([^'\n]{1,80})'|"([^"\n]{1,80})"|`([^`\n]{1,80})`)(?![A-Za-z0-9])""")
_TOKEN = re.compile(r"[A-Za-z0-9_./-]+")
_NAME_LIKE = re.compile(r"[_./\-0-9]|[a-z][A-Z]")
_PATH_PART = re.compile(rb"[/_.]")
_FILE = re.compile(rb"[/.]")
_SED_SCRIPT_START = re.compile(rb"^\s*sed [^']*'s?$")  # `sed -i '` and `sed -i 's`: the script's command
_SPACED_WORD = re.compile(rb" [A-Za-z0-9_]")
# sed's script being written: `sed -i 's/pl` (OLD), `s/plum/ap` (NEW), `s/plum/apple/` (whole)
_SED_SCRIPT = re.compile(rb"^\s*sed [^']*'s/(?P<old>[^/']*)(?:/(?P<new>[^/']*)(?P<end>/)?)?$")
# `>> plu`: the file a redirect writes (not `2>`, `->`, `=>`)
_REDIRECT = re.compile(rb"(?<![>0-9&=-])>>?(?P<space> ?)(?P<target>[A-Za-z0-9_./-]*)$")
# A closed string of the action so far: '"path": "a.txt"' -> a.txt (JSON-escaped, as the names are)
_WORD_TEXT = re.compile(r"[A-Za-z0-9]")
_CLOSED = re.compile(rb'"(?:command|path|content|message)"\s*:\s*"((?:[^"\\]|\\.)*)"')
_LINE_ID = re.compile(r"[0-9a-f]{6,40}|\d+[:.]?")  # what leads a line of `git log --oneline` or a numbered list
_PATH = re.compile(rb'"path"\s*:\s*"((?:[^"\\]|\\.)*)"')
# A word of the request standing alone (not a part of "add_dome.py" or "src/app.py")
_PLAIN_WORD = re.compile(r"(?<![\w./'-])[A-Za-z0-9]+(?![\w/'-]|\.\w)")
# A new script's first statement printing a literal, being written: `print('pur` (JSON-escaped)
_PRINT_LITERAL = re.compile(rb"^print\((?P<quote>'|\\\")(?P<text>[^'\\]*)$")


def escape_for_json_string(text: str) -> bytes:
    """``text`` as it is written inside a JSON string (what the model emits for it)."""
    return json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8")


def copy_candidates(sources: Iterable[str], workspace_names: Iterable[str] = ()) -> list[str]:
    """The names in ``sources`` a reply may copy (see the module docstring), longest first.

    Args:
        sources: the user's request and the command outputs since.
        workspace_names: paths of the workspace's files and folders; a plain word of a source that is
            one of their parts counts as a name.
    """
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
            if _NAME_LIKE.search(word) or word in stems:
                names.add(word)
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


@dataclass(frozen=True)
class CopyTargets:
    """What a reply may copy: every name (`copy_candidates`), which of them the user quoted, and the
    lines the commands since printed (a MSG may quote one: "It prints: rapid cursor ok")."""

    names: tuple[str, ...]
    quoted: frozenset[str] = frozenset()
    lines: tuple[str, ...] = ()
    paths: frozenset[str] = frozenset()  # the workspace's files and folders
    present: frozenset[str] = frozenset()  # the quoted values a file of the workspace holds
    words: tuple[str, ...] = ()  # what a new script may print (`_printed_words` of the request)

    def escaped(self) -> "EscapedTargets":
        """The same in the JSON-escaped byte form an open string is in (what `CopyBias` matches)."""
        names = tuple(escape_for_json_string(n) for n in self.names)
        quoted = frozenset(escape_for_json_string(n) for n in self.quoted)
        lines = tuple(escape_for_json_string(line) for line in self.lines if line not in self.names)
        paths = frozenset(escape_for_json_string(p) for p in self.paths)
        present = frozenset(escape_for_json_string(v) for v in self.present)
        return EscapedTargets(names, quoted, lines, paths, present, tuple(escape_for_json_string(w) for w in self.words))


@dataclass(frozen=True)
class EscapedTargets:
    names: tuple[bytes, ...]
    quoted: frozenset[bytes]
    lines: tuple[bytes, ...] = ()
    paths: frozenset[bytes] = frozenset()
    present: frozenset[bytes] = frozenset()
    words: tuple[bytes, ...] = ()


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


def copy_targets(sources: Iterable[str], workspace_names: Iterable[str] = (), root: str | os.PathLike | None = None
                 ) -> CopyTargets:  # fmt: skip
    """`copy_candidates`, which of them the user quoted, the output lines of the commands since
    (``sources[1:]``), and, given the workspace's ``root``, which quoted values its files hold."""
    sources, workspace_names = list(sources), list(workspace_names)
    names = copy_candidates(sources, workspace_names)
    quoted = {next(g for g in m.groups() if g is not None) for text in sources for m in _QUOTED.finditer(text)}
    lines = dict.fromkeys(line for text in sources[1:] for line in output_lines(text))
    present = _held_by_files(quoted, root, workspace_names) if root is not None and quoted else frozenset()
    words = tuple(_printed_words(sources[0])) if sources else ()
    return CopyTargets(tuple(names), frozenset(quoted), tuple(lines), frozenset(workspace_names), present, words)


_PRINT_VERBS = ("print", "prints", "printing", "output", "outputs", "say", "says", "echo", "echoes")
_PRINT_FILLERS = frozenset({"the", "word", "words", "text", "just", "only", "out", "is", "a", "string", "line"})


def _printed_words(request: str) -> list[str]:
    """The word of ``request`` a new script prints: the first after a verb of printing ("prints the word
    purple" -> purple; a typo of the verb counts: "prnt"); none where no such verb leads one."""
    words = _PLAIN_WORD.findall(request)
    for i, word in enumerate(words):
        if any(_one_typo_away(word.lower(), verb) for verb in _PRINT_VERBS):
            after = [w for w in words[i + 1 :] if w.lower() not in _PRINT_FILLERS]
            if after:
                return after[:1]
    return []


def _one_typo_away(word: str, verb: str) -> bool:
    """``word`` is ``verb``, or ``verb`` with one letter dropped or two neighbours swapped (how requests misspell)."""
    if word == verb:
        return True
    if len(word) == len(verb) - 1:
        return any(verb[:i] + verb[i + 1 :] == word for i in range(len(verb)))
    if len(word) == len(verb):
        diff = [i for i in range(len(word)) if word[i] != verb[i]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and word[diff[0]] == verb[diff[1]] and word[diff[1]] == verb[diff[0]]
    return False


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
        self.quote_tokens = {q: sorted(i for data, i in self._all.items() if data.startswith(q)) for q in (b"'", b'\\"')}
        self.word_tokens = sorted(i for data, i in self._all.items() if _WORD.match(data))
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

    def _matches(self, value: bytes, names: Iterable[bytes]) -> tuple[list[tuple[bytes, bytes]], int]:
        """[(name, what may follow ``value`` to copy it)], and how many bytes of a name ``value`` already
        holds (0 for a start). A name the string already holds is not offered again (a copy never loops)."""
        names = [name for name in names if name not in value]
        found, copied = [], 0
        for name in names:
            for size in range(min(len(value), len(name) - 1), 0, -1):
                if value.endswith(name[:size]) and _starts_a_name(value, len(value) - size):
                    found.append((name, name[size:]))
                    copied = max(copied, size)
                    break
        if found:
            return found, copied
        if value and _WORD.match(value[-1:]):
            return [(name, b" " + name) for name in names], 0
        return [(name, name) for name in names], 0

    def continuations(self, value: bytes, names: list[bytes]) -> tuple[list[bytes], int]:
        """(what may follow ``value`` to copy a name, how many bytes of a name it already holds: 0 for a start)."""
        found, copied = self._matches(value, names)
        return [continuation for _, continuation in found], copied

    def bonuses(self, value: bytes, names: Iterable[bytes], quoted: frozenset[bytes] = frozenset()
                ) -> tuple[dict[int, float], list[int] | None]:  # fmt: skip
        """({token id: logit bonus}, the tokens a locked copy keeps or None) for the open string ``value``
        (raw bytes, JSON-escaped form). Locked: of the `name_tokens`, only those kept may follow.
        At a start, the names in ``quoted`` get ``quoted_bonus``."""
        return self._bias(value, list(names), quoted)[:2]

    def _bias(self, value: bytes, names: list[bytes], quoted: frozenset[bytes], lock_after: int = LOCK_AFTER):
        """`bonuses`, plus what `field_bonuses` picks its restriction by: the matches, the bytes copied,
        and whether a quoted value just finished."""
        found, copied = self._matches(value, names)
        finished = [] if copied else [n for n in names if value.endswith(n) and _starts_a_name(value, len(value) - len(n))]
        finished_quoted = any(n in quoted for n in finished)
        if finished_quoted:  # a quoted value just ended: no bonus, its closing quote is the model's
            return {}, [], found, copied, True
        if finished:  # a copy just ended here (no longer name goes on from it): the word ends, a name may start
            found = [(name, c) for name, c in found if name not in quoted]
        out: dict[int, float] = {}
        for name, continuation in found:
            bonus = self.bonus if copied else self.quoted_bonus if name in quoted else self.start_bonus
            for token in self._tokens_starting(continuation):
                out[token] = max(out.get(token, bonus), bonus)
        if finished:
            return out, [], found, copied, False
        if not (found and copied >= lock_after):
            return out, None, found, copied, False
        return out, sorted({t for _, c in found for t in self._tokens_starting(c, self._all)}), found, copied, False

    def field_bonuses(self, value: bytes, targets: EscapedTargets, field: str, written: bytes
                      ) -> tuple[dict[int, float], list[int] | None, list[int]]:  # fmt: skip
        """`bonuses` for the open string ``value`` of ``field``, ``written`` being the action's text so far,
        and the tokens a lock restricts (of which only the kept ones may follow):

        - the names the action's closed strings hold are not offered again;
        - a path takes no name with a space; where the request names a path, the path is one of those
          (locked from its first byte to its closing quote);
        - a quoted phrase being copied is locked through its spaces: " set" may not cut "fast oyster ready";
          a name whose copied part has a ``/``, ``_`` or ``.`` is copied to its end ("flag/customer_patch"
          is no file; "cat" may still stop short of "catalog.py").
        """
        done = _CLOSED.findall(written)
        names = [n for n in targets.names if not any(n in closed for closed in done)]
        if field == "path":
            names = [n for n in names if b" " not in n]
            if names:  # the path is one of them: each token continues one, and the string ends only after one
                ends = [n[len(value):] for n in names if n.startswith(value)] if value else names
                kept = {t for c in ends if c for t in self._tokens_starting(c, self._all)}
                if value in names:
                    kept.update(self.closing_tokens)
                if kept:
                    return self.bonuses(value, names, targets.quoted)[0], sorted(kept), self.all_tokens
        quoted = targets.quoted
        if field == "command" and b" " not in value:  # a command starts with a program, not the user's quoted text
            names = [n for n in names if n not in quoted]
        if field == "message" and targets.lines:  # an output line is quoted text: copied whole, at quoted_bonus
            names += [line for line in targets.lines if not any(line in closed for closed in done)]
            quoted = quoted | frozenset(targets.lines)
        if field == "command" and _SED_SCRIPT_START.search(value):  # sed's own "s/" comes first, not a value
            return {}, None, self.name_tokens
        script = _SED_SCRIPT.search(value) if field == "command" and targets.present else None
        if script is not None:  # s/OLD/NEW/: OLD is a quoted value the workspace holds, NEW another one
            old, new = script.group("old"), script.group("new")
            if script.group("end") is not None:  # the script is whole: its closing quote
                return {}, self._tokens_starting(b"' ", self._all), self.all_tokens
            text = old if new is None else new
            values = [v for v in quoted if v in targets.present] if new is None else [v for v in quoted if v != old]
            ends = [v[len(text) :] for v in values if v.startswith(text) and v != text]
            bonus = self.bonus if text else self.quoted_bonus
            out = {t: bonus for end in ends for t in self._tokens_starting(end)}
            kept = {t for end in ends for t in self._tokens_starting(end, self._all)}
            if text in values:  # OLD goes on to NEW; NEW ends the script
                kept.update(self._tokens_starting(b"/" if new is None else b"/'", self._all))
            if kept:
                return out, sorted(kept), self.all_tokens
        redirect = _REDIRECT.search(value) if field == "command" else None
        if redirect is not None:  # the file a command writes to is one the conversation names, where it names one
            files = [n for n in names if _FILE.search(n) and b" " not in n and n not in quoted]
            target = redirect.group("target")
            space = b"" if target or redirect.group("space") else b" "  # `>>` + " plum.txt"
            ends = [space + n[len(target) :] for n in files if n.startswith(target) and n != target]
            if ends:
                out = {t: self.bonus if target else self.start_bonus for end in ends for t in self._tokens_starting(end)}
                return out, sorted({t for end in ends for t in self._tokens_starting(end, self._all)}), self.all_tokens
        created = _created_file(field, written, targets)  # the content of a file this EDIT creates, or None
        printed = _PRINT_LITERAL.match(value) if created is not None and created.endswith(b".py") else None
        if printed is not None:  # what a new script prints is the user's: a value they quoted, or one of their words
            text, quote = printed.group("text"), printed.group("quote")
            done = set(_CLOSED.findall(written))  # not the script's own path
            values = [v for v in (*sorted(targets.quoted), *targets.words) if v not in done]
            ends = [v[len(text) :] for v in values if v.startswith(text) and v != text]
            kept = {t for end in ends for t in self._tokens_starting(end, self._all)}
            if text in values:  # a whole one: the literal closes
                kept.update(self.quote_tokens[quote])
            if kept:
                bonus = self.bonus if text else self.quoted_bonus
                return {t: bonus for end in ends for t in self._tokens_starting(end)}, sorted(kept), self.all_tokens
        out, kept, found, copied, finished_quoted = self._bias(value, names, quoted, MSG_LOCK_AFTER if field == "message" else LOCK_AFTER)
        quote, argument = _open_argument(value) if field == "command" else (None, None)
        if created is not None and not created.endswith(b".py"):  # a text file: a text the user quoted is its content
            argument = value
        if argument is not None:  # the user's quoted text goes here: one of the unused values, whole
            if quote is not None and argument in quoted:  # copied whole: the argument's quote closes it
                return out, self.quote_tokens[quote], self.all_tokens
            ends = [n[len(argument):] for n in names if n in quoted and n not in value and n.startswith(argument) and n != argument]
            for end in ends:
                for token in self._tokens_starting(end):
                    out[token] = max(out.get(token, 0.0), self.quoted_bonus)
            locked = {t for end in ends for t in self._tokens_starting(end, self._all)}
            if quote is None and argument in quoted:  # a new file's content, whole: its line ends, then the string
                locked.update(self._tokens_starting(b'\\n"', self._all))  # (not "slow wave ok])\n    ready = ...")
            elif quote is None and argument.endswith(b"\\n") and argument[:-2] in quoted:
                locked.update(self.closing_tokens)
            if locked:
                return out, sorted(locked), self.all_tokens
        restrict = self.name_tokens
        if kept == []:  # a copy just finished: the word ends; after a quoted value, the quote closes next
            restrict = self.phrase_word_tokens if finished_quoted else self.word_tokens
        elif kept is not None:
            if any(b" " in c for _, c in found):
                restrict = self.phrase_tokens
            lines = [c for n, c in found if n in targets.lines] if field == "message" else []
            if lines:  # an output line is quoted whole, not left for a name it passes ("hello from app" + "]:", + ".py")
                kept, restrict = sorted({t for c in lines for t in self._tokens_starting(c, self._all)}), self.all_tokens
            if _PATH_PART.search(value[-copied:]):  # a path half copied ("flag/customer_patch") is finished
                restrict = self.all_tokens
            elif value[-copied:].isdigit() and all(n.isdigit() for n, _ in found) and value[-copied:] not in names:
                restrict = self.all_tokens  # so is a number: the "1" of "10" is another number (`head -n 1`)
            elif field != "message" and b" " in value and all(_FILE.search(n) for n, _ in found):
                restrict = self.all_tokens  # so is a file's name begun after the program ("cat app" + " x" for app.py)
        return out, kept, restrict


def _open_argument(command: bytes) -> tuple[bytes | None, bytes | None]:
    """(the quote, what a command (JSON-escaped) holds after it) for a quote that opens an argument, or (None,
    None): the quote follows a space and is not closed yet, and the command is not sed (``sed -i
    's/old/new/'``: its script is no value)."""
    if command.lstrip().startswith(b"sed "):
        return None, None
    for quote in (b"'", b'\\"'):
        at = command.rfind(b" " + quote)
        if at >= 0 and command.count(quote) % 2 == 1:
            return quote, command[at + 1 + len(quote) :]
    return None, None


def _created_file(field: str, written: bytes, targets: "EscapedTargets") -> bytes | None:
    """The path of the file whose content ``field`` is, where the EDIT creates it (the path it closed is
    no file of the workspace); None otherwise."""
    path = _PATH.search(written) if field == "content" else None
    return path.group(1) if path is not None and path.group(1) not in targets.paths else None


def _starts_a_name(value: bytes, at: int) -> bool:
    """Whether a name may begin at byte ``at`` of ``value``: at its start or after a separator."""
    return at == 0 or value[at - 1 : at] in _BEFORE_NAME


def copy_sources(messages: list[dict]) -> list[str]:
    """What a reply to ``messages`` may copy from: the last user message and every tool result after it."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if last_user is None:
        return []
    return [m["content"] for m in messages[last_user:] if m.get("role") in ("user", "tool") and m.get("content")]
