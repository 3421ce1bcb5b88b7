"""The action automaton stepped over a whole token vocabulary, for constrained decoding.

For a byte-level BPE tokenizer, `token_table` decodes every token to its bytes once, then (on first use)
runs every token from every state of `rusty_hf.protocol.automaton` with vectorised gathers, recording
where it ends and how many raw bytes it adds to the string it started in. Both are cached per tokenizer.

Usage (the logits processor does this)::

    table = token_table(tokenizer)
    step = table.step_state(state)          # allowed (V,) bool, distance (V,), added (V,) or None
    state, length = table.advance(state, token_id, length)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np
import torch

from rusty_hf.protocol.automaton import DEAD, ActionAutomaton, build_automaton

_PAD = 256  # pseudo-byte padding the token byte rows; every state maps it to itself


def _byte_decoder() -> dict[str, int]:
    """Invert the byte-level BPE alphabet: printable Latin-1 bytes are themselves, the rest 256 + n."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {b: chr(b) for b in printable}, 0
    for byte in range(256):
        if byte not in chars:
            chars[byte] = chr(256 + extra)
            extra += 1
    return {char: byte for byte, char in chars.items()}


@dataclass(frozen=True)
class StateStep:
    """Where every token of the vocabulary leads from one state."""

    allowed: torch.Tensor  # (V,) bool: the token keeps the text inside the grammar
    distance: torch.Tensor  # (V,) long: bytes still needed after the token
    added: torch.Tensor | None  # (V,) long: raw bytes added to the open string, open escapes included
    # (states inside a string only)
    max_distance: int  # the largest distance an allowed token leaves


@dataclass
class TokenTable:
    """Per-tokenizer byte strings of every token and the automaton stepped over them."""

    automaton: ActionAutomaton
    token_bytes: list[bytes | None]  # None for special/added tokens
    max_token_bytes: int
    _padded: torch.Tensor = field(repr=False)  # (V, L) long bytes of the tokens in _order, _PAD beyond the end
    _order: torch.Tensor = field(repr=False)  # (V,) token ids by decreasing byte length
    _active: list[int] = field(repr=False)  # _active[j]: how many tokens have more than j bytes
    _special: torch.Tensor = field(repr=False)  # (V,) bool
    _table: torch.Tensor = field(repr=False)  # (S, 257) long: the automaton's table plus the _PAD column
    _content: torch.Tensor = field(repr=False)  # (S,) bool
    _distance: torch.Tensor = field(repr=False)  # (S,) long
    _escape_debt: torch.Tensor = field(repr=False)  # (S,) long
    _steps: dict[int, StateStep] = field(default_factory=dict, repr=False)
    _ends: torch.Tensor | None = field(default=None, repr=False)  # (S, V) int16, token-id order
    _added: torch.Tensor | None = field(default=None, repr=False)  # (S, V) int16, token-id order

    def step_state(self, state: int) -> StateStep:
        if state not in self._steps:
            if self._ends is None:
                self._ends, self._added = self._step_all_states()
            end = self._ends[state].long()
            allowed, distance = end != DEAD, self._distance[end]
            added = None
            if bool(self._content[state]):  # bytes the token adds, plus those an escape it opens will need
                added = self._added[state].long() + self._escape_debt[end]
            max_distance = int(distance[allowed].max()) if allowed.any() else 0
            self._steps[state] = StateStep(allowed, distance, added, max_distance)
        return self._steps[state]

    def _step_all_states(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Run every token from every state at once: (end state, raw bytes added to the open string).

        Tokens are sorted by byte length, longest first, so byte column j only touches the first _active[j]
        columns: the work is states x the vocabulary's total byte count (~0.5 s for 150 states x 24K tokens).
        """
        states, width = self._table.shape
        flat = self._table.flatten()  # a 1-D gather is several times faster than 2-D advanced indexing
        cur = torch.arange(states).unsqueeze(1).repeat(1, len(self.token_bytes))  # (S, V)
        added = torch.zeros_like(cur)
        still_open = torch.ones_like(cur, dtype=torch.bool)
        for j, active in enumerate(self._active):
            prev = cur[:, :active]
            nxt = flat[prev * width + self._padded[:active, j]]
            inside, now_inside = self._content[prev], self._content[nxt]
            # Count bytes that stay inside the string the token started in (meaningful for string states only).
            added[:, :active] += inside & now_inside & still_open[:, :active]
            still_open[:, :active] &= ~(inside & ~now_inside)
            cur[:, :active] = nxt
        ends, counts = self._unsort(cur), self._unsort(added)
        ends[:, self._special] = DEAD
        return ends.to(torch.int16), counts.to(torch.int16)

    def _unsort(self, values: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(values)
        out[:, self._order] = values
        return out

    def advance(self, state: int, token_id: int, length: int) -> tuple[int, int]:
        """Step one token from ``state`` with ``length`` raw bytes in the open string; return both after."""
        data = self.token_bytes[token_id] if 0 <= token_id < len(self.token_bytes) else None
        if data is None:
            return DEAD, 0
        rows, fields = self.automaton.table, self.automaton.fields
        for byte in data:
            nxt = rows[state][byte]
            if fields[nxt] is not None:
                length = length + 1 if fields[state] is not None else 0
            state = nxt
        return state, length


def _build_table(tokenizer) -> TokenTable:
    automaton = build_automaton()
    decoder = _byte_decoder()
    special = set(tokenizer.all_special_ids) | {i for i in tokenizer.added_tokens_decoder}
    tokens = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    token_bytes: list[bytes | None] = []
    for token_id, token in enumerate(tokens):
        if token_id in special or token is None:
            token_bytes.append(None)
            continue
        try:
            token_bytes.append(bytes(decoder[char] for char in token))
        except KeyError:
            raise ValueError(
                f"token {token_id} ({token!r}) is not in the byte-level BPE alphabet; constrained decoding needs "
                "Rusty's byte-level tokenizer (rusty_hf.tokenizer.load_tokenizer)"
            ) from None
    lengths = torch.tensor([len(t or b"") for t in token_bytes])
    order = torch.argsort(lengths, descending=True, stable=True)
    longest = int(lengths.max())
    padded = np.full((len(token_bytes), longest), _PAD, dtype=np.int64)
    for row, token_id in enumerate(order.tolist()):
        data = token_bytes[token_id]
        if data:
            padded[row, : len(data)] = np.frombuffer(data, dtype=np.uint8)
    active = [int((lengths > j).sum()) for j in range(longest)]
    table = torch.tensor(automaton.table, dtype=torch.long)
    table = torch.cat([table, torch.arange(len(automaton.table)).unsqueeze(1)], dim=1)  # _PAD: stay
    return TokenTable(
        automaton=automaton,
        token_bytes=token_bytes,
        max_token_bytes=longest,
        _padded=torch.from_numpy(padded),
        _order=order,
        _active=active,
        _special=torch.tensor([t is None for t in token_bytes]),
        _table=table,
        _content=torch.tensor([f is not None for f in automaton.fields]),
        _distance=torch.tensor(automaton.distance, dtype=torch.long),
        _escape_debt=torch.tensor(automaton.escape_debt, dtype=torch.long),
    )


_TABLES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def token_table(tokenizer) -> TokenTable:
    """The `TokenTable` of ``tokenizer``, built on first use and kept while the tokenizer lives."""
    try:
        return _TABLES[tokenizer]
    except KeyError:
        table = _TABLES[tokenizer] = _build_table(tokenizer)
        return table
