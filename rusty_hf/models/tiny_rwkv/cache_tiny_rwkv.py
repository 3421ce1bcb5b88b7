"""TinyRWKV's recurrent state as a `transformers.Cache`: what `generate` reorders, returns and continues.

An RWKV model's whole past is a fixed-size state: five float32 tensors of shape (batch, n_layers,
d_hidden) (time-mix shift, WKV numerator `a`, denominator `b`, exponent `p`, channel-mix shift).
`TinyRWKVCache` holds that state and the number of positions it has read, which is all `generate`
asks of a cache:

- beam search calls `reorder_cache(beam_idx)` after every step;
- `generate(input_ids=full_sequence, past_key_values=out.past_key_values)` feeds only the positions
  past `get_seq_length()`, so a generation continues where the last one stopped;
- a forward with `past_key_values=cache` reads the state and writes the new one back into the same
  object, as transformers' caches do (`cache.state` is replaced, never modified in place, so a tensor a
  caller kept from an earlier step stays as it was).

    >>> import torch
    >>> from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM
    >>> model = TinyRWKVForCausalLM(TinyRWKVConfig(vocab_size=99, d_embed=32, d_hidden=64, n_layers=2))
    >>> out = model(torch.tensor([[5, 6, 7]]), use_cache=True)
    >>> out.past_key_values.get_seq_length(), out.past_key_values.state[0].shape
    (3, torch.Size([1, 2, 64]))

A recurrent state cannot be cropped (assisted generation, which needs it, is refused by transformers for
stateful models), so `crop` raises. Imports only torch and transformers (remote code).
"""

from __future__ import annotations

import torch
from transformers.cache_utils import Cache

RecurrentState = tuple[torch.Tensor, ...]


class TinyRWKVCache(Cache):
    """The recurrent state of a TinyRWKV model plus the count of positions it has seen.

    Args:
        state: the five (batch, n_layers, d_hidden) float32 tensors, or None before the first forward.
        seen_tokens: positions (padding included, as `attention_mask` counts them) the state has read.
    """

    def __init__(self, state: RecurrentState | None = None, seen_tokens: int = 0):
        super().__init__(layers=[])  # no per-layer key/value storage: the state is one fixed-size tuple
        self.state = tuple(state) if state is not None else None
        self.seen_tokens = seen_tokens

    def __repr__(self) -> str:
        shape = None if self.state is None else tuple(self.state[0].shape)
        return f"TinyRWKVCache(state={shape}, seen_tokens={self.seen_tokens})"

    def __len__(self) -> int:
        return 0 if self.state is None else self.state[0].shape[1]

    def update_state(self, state: RecurrentState, new_tokens: int) -> None:
        """Replace the state by the one after `new_tokens` more positions."""
        self.state = tuple(state)
        self.seen_tokens += new_tokens

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.seen_tokens

    def get_max_length(self, layer_idx: int | None = None) -> int:
        return -1  # no limit: the state has the same size at any length

    def has_previous_state(self, layer_idx: int | None = None, state_idx: int | None = None) -> bool:
        return self.state is not None

    def get_mask_sizes(self, query_length: int, layer_idx: int = 0) -> tuple[int, int]:
        return query_length, 0  # the model reads a 2D padding mask of the new positions only

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        """Keep the rows `beam_idx` names (beam search, after each step)."""
        if self.state is not None:
            self.state = tuple(s.index_select(0, beam_idx.to(s.device)) for s in self.state)

    def batch_repeat_interleave(self, repeats: int) -> None:
        if self.state is not None:
            self.state = tuple(s.repeat_interleave(repeats, dim=0) for s in self.state)

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        if self.state is not None:
            self.state = tuple(s[indices] for s in self.state)

    def reset(self) -> None:
        self.state, self.seen_tokens = None, 0

    def crop(self, tokens_to_remove: int) -> None:
        if tokens_to_remove > 0:
            raise NotImplementedError(
                "TinyRWKVCache cannot be cropped: a recurrent state cannot forget its last tokens. Keep the cache from "
                "before them, or run the prompt again."
            )

    def offload(self, layer_idx: int = 0, only_non_sliding: bool = True) -> None:
        if self.state is not None:
            self.state = tuple(s.to("cpu", non_blocking=True) for s in self.state)

    @property
    def batch_size(self) -> int:
        return -1 if self.state is None else self.state[0].shape[0]

    @property
    def is_compileable(self) -> bool:
        return False  # `generate` would build 4D attention masks for a compileable cache

    @property
    def is_initialized(self) -> bool:
        return self.state is not None

    @property
    def is_croppable(self) -> bool:
        return False

    @property
    def is_sliding(self) -> list[bool]:
        return []


__all__ = ["RecurrentState", "TinyRWKVCache"]
