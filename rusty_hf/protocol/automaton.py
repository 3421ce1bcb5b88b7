"""A byte-level automaton of the action grammar, evaluated over a whole token vocabulary at once.

The grammar is the canonical subset of the protocol that constrained decoding emits::

    ws {ws "action" ws : ws "<MSG|CMD|EDIT>" ws , ws "<field>" ws : ws "<string>" [ws , ws "content" ...] ws }

- keys in the order `ACTION_FIELDS` gives ("action" first, then the action's fields), each once, nothing
  else -- every string it accepts is one `parse_action` accepts;
- ``ws`` is at most `MAX_GAP_WHITESPACE` JSON whitespace bytes; the leading gap lets the first token carry
  the byte-level BPE's prefix space (`` {``); nothing may follow the closing ``}``;
- strings take any byte >= 0x20 except ``"`` and ``\\`` raw (so UTF-8, split across tokens or not), and
  the JSON escapes ``\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX``, with ``\\uD800``-``\\uDFFF`` excluded (a lone
  surrogate is not text; non-BMP characters come as raw UTF-8). Malformed raw UTF-8 decodes to U+FFFD,
  still a valid string;
- ``command`` and ``path`` must not be empty (`NON_EMPTY_FIELDS`).

Field length limits cannot live in a finite automaton; `rusty_hf.protocol.vocabulary` reports how many raw
bytes a token adds to the open string, and the logits processor compares that with `MAX_FIELD_CHARS` (raw
bytes are never fewer than decoded characters, so the limit holds after decoding too).

Usage::

    automaton = build_automaton()
    state = automaton.start
    for byte in b'{"action": "CMD", "command": "ls"}':
        state = automaton.table[state][byte]
    assert state in automaton.accepting
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from rusty_hf.protocol.actions import ACTION_FIELDS, NON_EMPTY_FIELDS

MAX_GAP_WHITESPACE = 2
DEAD = 0  # the sink: every byte from it leads back to it
_WS = b" \t\n\r"
_HEX = b"0123456789abcdefABCDEF"
_CONTENT = [b for b in range(0x20, 256) if b not in b'"\\']


class _Builder:
    """Builds the DFA as a transition list; an element maps a set of entry states to its exit states."""

    def __init__(self) -> None:
        self.rows: list[list[int]] = []
        self.fields: list[str | None] = []
        self.escape_debt: list[int] = []
        self.new()  # DEAD

    def new(self, field_name: str | None = None) -> int:
        self.rows.append([DEAD] * 256)
        self.fields.append(field_name)
        self.escape_debt.append(0)
        return len(self.rows) - 1

    def edge(self, src: int, byte: int, dst: int) -> None:
        if self.rows[src][byte] not in (DEAD, dst):
            raise AssertionError(f"ambiguous transition from state {src} on {chr(byte)!r}")
        self.rows[src][byte] = dst

    def gap(self, entries: set[int]) -> set[int]:
        states, frontier = set(entries), entries
        for _ in range(MAX_GAP_WHITESPACE):
            nxt = self.new()
            for src in frontier:
                for byte in _WS:
                    self.edge(src, byte, nxt)
            states.add(nxt)
            frontier = {nxt}
        return states

    def literal(self, entries: set[int], text: bytes) -> set[int]:
        current = entries
        for byte in text:
            nxt = self.new()
            for src in current:
                self.edge(src, byte, nxt)
            current = {nxt}
        return current

    def string(self, entries: set[int], field_name: str) -> set[int]:
        (empty,) = self.literal(entries, b'"')
        self.fields[empty] = field_name
        body, esc, close = self.new(field_name), self.new(field_name), self.new()
        u1, u2, u2_low, u3, u4 = (self.new(field_name) for _ in range(5))
        for state, debt in ((esc, 1), (u1, 4), (u2, 3), (u2_low, 3), (u3, 2), (u4, 1)):
            self.escape_debt[state] = debt
        for src in (empty, body):
            for byte in _CONTENT:
                self.edge(src, byte, body)
            self.edge(src, ord("\\"), esc)
        self.edge(body, ord('"'), close)
        if field_name not in NON_EMPTY_FIELDS:
            self.edge(empty, ord('"'), close)
        for byte in b'"\\/bfnrt':
            self.edge(esc, byte, body)
        self.edge(esc, ord("u"), u1)
        for byte in _HEX:  # \uD800-\uDFFF (surrogates) are excluded: "d"/"D" must be followed by 0-7
            self.edge(u1, byte, u2_low if byte in b"dD" else u2)
            self.edge(u2, byte, u3)
            self.edge(u3, byte, u4)
            self.edge(u4, byte, body)
        for byte in b"01234567":
            self.edge(u2_low, byte, u3)
        return {close}

    def member(self, entries: set[int], key: str) -> set[int]:
        after_key = self.gap(self.literal(entries, f'"{key}"'.encode()))
        return self.gap(self.literal(after_key, b":"))


@dataclass(frozen=True)
class ActionAutomaton:
    """The DFA: ``table[state][byte]`` is the next state, `DEAD` when the byte is not allowed."""

    table: list[list[int]]
    fields: list[str | None]  # the field whose string a state is inside, else None
    start: int
    accepting: frozenset[int]
    distance: list[int]  # fewest bytes from a state to an accepting one (a large number from DEAD)
    escape_debt: list[int]  # bytes an open escape still needs (\\uXX: 2), so a length limit leaves room for them


def build_automaton() -> ActionAutomaton:
    b = _Builder()
    start = b.new()
    opened = b.gap(b.literal(b.gap({start}), b"{"))
    name_start = b.literal(b.member(opened, "action"), b'"')
    accepting = set()
    for name, fields in ACTION_FIELDS.items():
        cur = b.literal(name_start, f'{name}"'.encode())
        for field_name in fields:
            cur = b.gap(b.literal(b.gap(cur), b","))
            cur = b.string(b.member(cur, field_name), field_name)
        accepting |= b.literal(b.gap(cur), b"}")
    distances = _distances(b.rows, accepting)
    return ActionAutomaton(b.rows, b.fields, start, frozenset(accepting), distances, b.escape_debt)


def _distances(rows: list[list[int]], accepting: set[int]) -> list[int]:
    reverse: list[set[int]] = [set() for _ in rows]
    for src, row in enumerate(rows):
        for dst in row:
            reverse[dst].add(src)
    far = 1 << 20
    dist = [far] * len(rows)
    queue = deque(accepting)
    for state in accepting:
        dist[state] = 0
    while queue:
        state = queue.popleft()
        for src in reverse[state]:
            if src != DEAD and dist[src] == far:
                dist[src] = dist[state] + 1
                queue.append(src)
    return dist
