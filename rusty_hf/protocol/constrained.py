"""Constrained decoding: a transformers `LogitsProcessor` under which a model can only emit valid actions.

Usage::

    from transformers import LogitsProcessorList
    from rusty_hf.protocol import ProtocolLogitsProcessor, parse_action

    processor = ProtocolLogitsProcessor(tokenizer, max_new_tokens=256)
    out = model.generate(**inputs, max_new_tokens=256, do_sample=True,
                         logits_processor=LogitsProcessorList([processor]))
    action = parse_action(tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True))

How it works: `rusty_hf.protocol.automaton` holds a byte-level DFA of the action grammar;
`rusty_hf.protocol.vocabulary` records, for every (DFA state, token) pair, where the token leads --
computed once per tokenizer, on first use, with vectorised gathers (about half a second for the 24K
vocabulary on one idle core; 2 x 7 MB of int16). A step is then a cached-mask lookup per row plus one
``masked_fill``; a row's state advances by the bytes of the token it just sampled. ``generate`` runs
custom processors before its sampling warpers (temperature, top-k, top-p), so those see allowed tokens only.

Why a hand-written automaton rather than xgrammar / lm-format-enforcer: the grammar is three fixed shapes,
we need exactly our schema (non-empty command/path, per-field length limits, no lone surrogates), EOS only
after the closing brace, and a budget rule to finish within ``max_new_tokens`` -- all small here and
awkward to express there; it also adds no compiled dependency.

Behaviour:

- the prompt: the processor tracks only generated tokens. ``prompt_length`` fixes where they start; by
  default the input length at the first call is taken (a batch is padded to one length, so left padding
  is fine). A call whose input is not the previous one plus one token starts a new generation, so one
  processor can serve successive ``generate`` calls; rows that come back reordered (beam search) are
  replayed from their generated tokens;
- EOS (``<|end|>`` and ``<|endoftext|>``, or ``eos_token_id``) is allowed only once the closing ``}`` has
  been emitted, and is then the only choice; a row that has finished may emit only EOS or pad;
- with ``max_new_tokens`` set, a token is allowed only if the action can still be closed in the tokens
  left (every byte of the byte-level alphabet is a token, so the shortest completion in bytes bounds it in
  tokens): a long message gets cut short rather than left unterminated. Without it, a generation stopped
  by the length limit can end mid-action;
- whitespace: up to two whitespace bytes before ``{`` and around ``: ,`` (the first token may carry the
  tokenizer's prefix space); keys come in the canonical order ``"action"`` first.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import LogitsProcessor, PreTrainedTokenizerBase

from rusty_hf.protocol.actions import MAX_FIELD_CHARS
from rusty_hf.protocol.automaton import DEAD
from rusty_hf.protocol.vocabulary import TokenTable, token_table
from rusty_hf.tokenizer import generation_eos_ids


@dataclass
class _Row:
    state: int
    length: int = 0  # raw bytes in the open string
    done: bool = False


class ProtocolLogitsProcessor(LogitsProcessor):
    """Mask every token that would take a row's generated text outside the action grammar.

    Args:
        tokenizer: Rusty's byte-level BPE tokenizer (the model's).
        prompt_length: input length at which generated tokens start; None: the length at the first call.
        max_new_tokens: the generation's ``max_new_tokens``; lets the processor close the action in time.
        eos_token_id: ids that end a generation; default ``<|end|>`` and the tokenizer's eos.
    """

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        prompt_length: int | None = None,
        max_new_tokens: int | None = None,
        eos_token_id: int | list[int] | None = None,
    ) -> None:
        self.table: TokenTable = token_table(tokenizer)
        self.prompt_length = prompt_length
        self.max_new_tokens = max_new_tokens
        if eos_token_id is None:
            eos_token_id = generation_eos_ids(tokenizer)
        self.eos_ids = sorted(set([eos_token_id] if isinstance(eos_token_id, int) else eos_token_id))
        self.stop_ids = self.eos_ids + ([tokenizer.pad_token_id] if tokenizer.pad_token_id is not None else [])
        self.reset()

    def reset(self) -> None:
        """Forget the rows of the current generation (done automatically when a new one starts)."""
        self._rows: list[_Row] = []
        self._start = 0
        self._last: torch.Tensor | None = None

    # Overrides LogitsProcessor.__call__, the one hook generate() calls per step: scores of disallowed
    # tokens become -inf, so greedy search, sampling and the warpers after it all pick allowed tokens.
    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        self._track(input_ids)
        vocab = len(self.table.token_bytes)
        if scores.shape[-1] < vocab:
            raise ValueError(
                f"the model scores {scores.shape[-1]} tokens but the tokenizer has {vocab}; "
                "use the tokenizer the model was trained with"
            )
        left = None if self.max_new_tokens is None else self.max_new_tokens - (input_ids.shape[1] - self._start)
        mask = torch.zeros(scores.shape, dtype=torch.bool)
        for i, row in enumerate(self._rows):
            mask[i, :vocab] = self._row_mask(row, left)
        return scores.masked_fill(~mask.to(scores.device), float("-inf"))

    def _track(self, input_ids: torch.LongTensor) -> None:
        batch, length = input_ids.shape
        ids = input_ids.detach().cpu()
        same_run = self._last is not None and len(self._rows) == batch and length == self._last_length + 1
        # Compare whole generated prefixes, not just last tokens: two swapped rows may share a last token.
        if same_run and torch.equal(ids[:, self._start : -1], self._last):
            new = ids[:, -1:]
        else:
            if not same_run:  # a new generation
                self._start = length if self.prompt_length is None else self.prompt_length
            # else: rows were reordered (beam search); replay each row from the same start
            self._rows = [_Row(self.table.automaton.start) for _ in range(batch)]
            new = ids[:, self._start :]
        for i, row in enumerate(self._rows):
            for token_id in new[i].tolist():
                self._advance(row, token_id)
        self._last, self._last_length = ids[:, self._start :].clone(), length

    def _advance(self, row: _Row, token_id: int) -> None:
        if row.done:
            return
        if token_id in self.eos_ids:
            row.done = True
            return
        row.state, row.length = self.table.advance(row.state, token_id, row.length)

    def _row_mask(self, row: _Row, left: int | None) -> torch.Tensor:
        vocab = len(self.table.token_bytes)
        if row.done or row.state == DEAD or row.state in self.table.automaton.accepting:
            # Finished rows get eos/pad; a complete action may only end; a row pushed off the grammar by
            # another processor is ended rather than left to ramble.
            allowed = torch.zeros(vocab, dtype=torch.bool)
            allowed[self.stop_ids if row.done else self.eos_ids] = True
            return allowed
        step = self.table.step_state(row.state)
        allowed = step.allowed
        field = self.table.automaton.fields[row.state]
        # A token plus the escape it may open (at most 5 more bytes) fits unless the string is this close to
        # its limit; only then is the (rarely needed) length filter applied.
        if field is not None and MAX_FIELD_CHARS[field] - row.length < self.table.max_token_bytes + 5:
            allowed = allowed & (step.added <= MAX_FIELD_CHARS[field] - row.length)
        if left is not None and left - 1 < step.max_distance:  # skipped while the budget is ample
            in_time = allowed & (step.distance <= left - 1)
            if in_time.any():
                allowed = in_time
            else:  # too few tokens left to finish at all: get as close as possible
                closest = step.distance.masked_fill(~allowed, 1 << 30).min()
                allowed = allowed & (step.distance == closest)
        if not allowed.any():  # cannot happen by construction; an all -inf row would crash sampling
            allowed = torch.zeros(vocab, dtype=torch.bool)
            allowed[self.eos_ids] = True
        return allowed
