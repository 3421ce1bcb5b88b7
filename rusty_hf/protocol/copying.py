"""Copy bias: while an action's string is open, favour tokens that copy a name the conversation gave.

A terminal request names files, symbols and phrases the model may never have seen ("count the lines
of harbor_notes.txt"). A small recurrent model with an untied head cannot produce a token it was
never trained to output, however well it learned *where* a name goes. This bias does the copying
for it: the model still decides what to write, and tokens that copy one of the conversation's
*names* get a bonus on their logits.

Names (:func:`copy_candidates`) are the spans of the user's request and of the command outputs since
that look like what a command takes: quoted text, words with ``_ . / -`` or a digit or an inner
capital (``harbor_notes.txt``, ``scripts/run.py``, ``BudgetArchive``, ``12``), the parts of a path
after each ``/``, and request words that name a file or folder of the workspace. Plain words of a
sentence ("how", "many", "lines") are not names: copying them is the model's own decision.

- copy start: after a separator (or at the start of the string) the tokens that start a name get
  ``start_bonus``; right after a word, the tokens that bring a space and start a name (" harbor");
- mid-copy: when the open string ends with the beginning of a name (and that beginning follows a
  space, a quote, a slash, ``=``, ``(``, ``:`` or ``,``: the ``c`` of ``wc -c`` begins no name), the tokens that continue it get ``bonus``; once ``LOCK_AFTER`` bytes of a name are
  written, the copy is locked: a token that could be part of a name (it starts with a letter, a digit
  or one of ``_ . / -``) must continue this one; what ends a word (a quote, a space) stays allowed. A
  small model otherwise drifts back into a name it remembers halfway through ("check_pa" + "yments"
  for check_patches.py, "data/bea" + ".csv" for data/beacon.csv).

A name the open string already holds is not offered again, so a copy never repeats itself.

Only tokens with a letter or digit get a bonus: where a name ends (a quote, a brace, a space) stays
the model's decision. Names are matched in the form they take inside a JSON string (escaped), the
form the open string is in. The bias never makes a token allowed: the grammar's mask comes after it.

    bias = CopyBias(token_bytes)                                   # once per tokenizer
    names = copy_candidates(["how many lines in harbor_notes.txt?"])   # ['harbor_notes.txt']
    bonuses, locked = bias.bonuses(b"wc -l", [escape_for_json_string(n) for n in names])  # {id of " harbor": 6.0, ...}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

DEFAULT_BONUS = 10.0
DEFAULT_START_BONUS = 6.0
LOCK_AFTER = 3  # bytes of a name copied before the copy is locked
_WORD = re.compile(rb"[A-Za-z0-9_]")
_NAME_START = re.compile(rb"[A-Za-z0-9_./-]")
# What a copied name may follow inside the string: not "-" (the c of `wc -c` starts no name) nor a letter.
_BEFORE_NAME = frozenset(bytes([c]) for c in b" \"'=/(:,")
_QUOTED = re.compile(r"""'([^'\n]{1,80})'|"([^"\n]{1,80})"|`([^`\n]{1,80})`""")
_TOKEN = re.compile(r"[A-Za-z0-9_./-]+")
_NAME_LIKE = re.compile(r"[_./\-0-9]|[a-z][A-Z]")


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
                names.update(word.split("/")[i] for i in range(1, word.count("/") + 1))  # basename and the parts
                names.update("/".join(word.split("/")[i:]) for i in range(1, word.count("/") + 1))
    return sorted((n for n in names if n), key=lambda n: (-len(n), n))


class CopyBias:
    """Bonuses for tokens that copy a name (see the module docstring).

    Args:
        token_bytes: every token id's raw bytes (None for special tokens), as `TokenTable.token_bytes`.
        bonus: logit bonus of a token that continues a name being copied.
        start_bonus: logit bonus of a token that starts copying a name.
    """

    def __init__(self, token_bytes: list[bytes | None], bonus: float = DEFAULT_BONUS,
                 start_bonus: float = DEFAULT_START_BONUS) -> None:  # fmt: skip
        self.bonus, self.start_bonus = bonus, start_bonus
        self._all = {data: i for i, data in enumerate(token_bytes) if data}
        self._ids = {data: i for data, i in self._all.items() if _WORD.search(data)}
        self._longest = max((len(data) for data in self._all), default=1)
        # what a locked copy restricts: tokens that could go on with a name
        self.name_tokens = sorted(i for data, i in self._all.items() if _NAME_START.match(data))

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

    def continuations(self, value: bytes, names: list[bytes]) -> tuple[list[bytes], int]:
        """(what may follow ``value`` to copy a name, how many bytes of a name it already holds: 0 for a start).

        A name the string already holds is not offered again (a copy never loops)."""
        names = [name for name in names if name not in value]
        found, copied = [], 0
        for name in names:
            for size in range(min(len(value), len(name) - 1), 0, -1):
                if value.endswith(name[:size]) and (size == len(value) or value[-size - 1 : -size] in _BEFORE_NAME):
                    found.append(name[size:])
                    copied = max(copied, size)
                    break
        if found:
            return found, copied
        if value and _WORD.match(value[-1:]):
            return [b" " + name for name in names], 0
        return list(names), 0

    def bonuses(self, value: bytes, names: list[bytes]) -> tuple[dict[int, float], list[int] | None]:
        """({token id: logit bonus}, the tokens a locked copy keeps or None) for the open string ``value``
        (raw bytes, JSON-escaped form). Locked: of the `name_tokens`, only those kept may follow."""
        continuations, copied = self.continuations(value, names)
        bonus = self.bonus if copied else self.start_bonus
        out: dict[int, float] = {}
        for continuation in continuations:
            for token in self._tokens_starting(continuation):
                out[token] = bonus
        if not (continuations and copied >= LOCK_AFTER):
            return out, None
        return out, sorted({t for c in continuations for t in self._tokens_starting(c, self._all)})


def copy_sources(messages: list[dict]) -> list[str]:
    """What a reply to ``messages`` may copy from: the last user message and every tool result after it."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if last_user is None:
        return []
    return [m["content"] for m in messages[last_user:] if m.get("role") in ("user", "tool") and m.get("content")]
