"""Copy bias: while an action's string is open, favour tokens that copy text the conversation gave.

A terminal request names files, symbols and phrases the model may never have seen ("count the lines
of harbor_notes.txt"). A small recurrent model with an untied head cannot produce a token it was
never trained to output, however well it learned *where* a name goes. This bias does the copying
for it, as prompt-lookup decoding does for speed: the model still decides what to write, and the
tokens that continue a span of the sources (the user's request, the command outputs since) get a
bonus on their logits.

- mid-copy: the open string ends with text that occurs in a source (at least ``MIN_MATCH`` bytes, the
  longest such suffix wins); the tokens that continue one of its occurrences get ``bonus``;
- copy start: otherwise, the tokens that start copying a word of a source get ``start_bonus``: the
  word itself after a separator (or at the start of the string), the word with the separator before
  it (" harbor", "/notes") right after a word.

Only tokens with a letter or digit get a bonus (a quote, a brace or a space is the model's own
decision: where a value ends stays with it). Sources are matched in the form they take inside a JSON
string (escaped), the form the open string is in. The bias never makes a token allowed: the grammar's
mask is applied after it.

    bias = CopyBias(token_bytes)                           # once per tokenizer
    bonuses = bias.bonuses(b"wc -l ", [b"lines in harbor_notes.txt?"])   # {token id: bonus}
"""

from __future__ import annotations

import json
import re

MIN_MATCH = 2  # bytes of the open string that must match a source before its continuation counts
MAX_MATCH = 48  # the longest suffix tried
MAX_COPY = 48  # bytes of continuation considered for one match
DEFAULT_BONUS = 8.0
DEFAULT_START_BONUS = 4.0
_WORD = re.compile(rb"[A-Za-z0-9_]")


def escape_for_json_string(text: str) -> bytes:
    """``text`` as it is written inside a JSON string (what the model emits for it)."""
    return json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8")


class CopyBias:
    """Bonuses for tokens that copy from sources (see the module docstring).

    Args:
        token_bytes: every token id's raw bytes (None for special tokens), as `TokenTable.token_bytes`.
        bonus: logit bonus of a token that continues a matched span.
        start_bonus: logit bonus of a token that starts copying a word.
    """

    def __init__(self, token_bytes: list[bytes | None], bonus: float = DEFAULT_BONUS,
                 start_bonus: float = DEFAULT_START_BONUS) -> None:  # fmt: skip
        self.bonus, self.start_bonus = bonus, start_bonus
        self._ids = {data: i for i, data in enumerate(token_bytes) if data and _WORD.search(data)}
        self._longest = max((len(data) for data in self._ids), default=1)

    def _tokens_starting(self, continuation: bytes) -> list[int]:
        """Tokens whose bytes are a prefix of ``continuation``."""
        found = []
        for end in range(1, min(len(continuation), self._longest) + 1):
            token = self._ids.get(continuation[:end])
            if token is not None:
                found.append(token)
        return found

    def continuations(self, value: bytes, sources: list[bytes]) -> tuple[list[bytes], bool]:
        """(what may follow ``value`` if it copies on, whether that is a copy start)."""
        for size in range(min(len(value), MAX_MATCH), MIN_MATCH - 1, -1):
            tail = value[-size:]
            found = []
            for source in sources:
                at = source.find(tail)
                while at >= 0:
                    rest = source[at + size : at + size + MAX_COPY]
                    if rest:
                        found.append(rest)
                    at = source.find(tail, at + 1)
            if found:
                return found, False
        # A copy start: after a word, a token that brings its own separator (" harbor", "/notes");
        # after a separator (or at the start), the word itself.
        after_word = bool(value) and _WORD.match(value[-1:]) is not None
        starts = []
        for source in sources:
            for match in re.finditer(rb"(?<![A-Za-z0-9_])[A-Za-z0-9_]", source):
                at = match.start()
                if not after_word:
                    starts.append(source[at : at + MAX_COPY])
                elif at > 0:
                    starts.append(source[at - 1 : at + MAX_COPY])
        return starts, True

    def bonuses(self, value: bytes, sources: list[bytes]) -> dict[int, float]:
        """{token id: logit bonus} for the open string ``value`` (raw bytes, JSON-escaped form)."""
        continuations, start = self.continuations(value, sources)
        bonus = self.start_bonus if start else self.bonus
        out: dict[int, float] = {}
        for continuation in continuations:
            for token in self._tokens_starting(continuation):
                out[token] = bonus
        return out


def copy_sources(messages: list[dict]) -> list[str]:
    """What a reply to ``messages`` may copy from: the last user message and every tool result after it."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if last_user is None:
        return []
    return [m["content"] for m in messages[last_user:] if m.get("role") in ("user", "tool") and m.get("content")]
