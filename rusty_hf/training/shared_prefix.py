"""Run the prompt that every row of a training batch starts with once, not once per row.

Every SFT row of Rusty opens with the same ~115-token system prompt, and the loss is on the
assistant's turns only; for a terminal request (~40 tokens of request and answer) that prefix is
three quarters of the row. A recurrent model can carry it as a state: the backbone runs the batch's
common prefix for one row, without gradient, expands the resulting state to the batch, and runs only
the rest of each row from it.

    from rusty_hf.training.shared_prefix import share_batch_prefix
    # before SFTTrainer(...), with assistant_only_loss or completion_only_loss:
    share_batch_prefix(model, stop_token_ids=[tokenizer.convert_tokens_to_ids("<|assistant|>")])

What changes, and why it is safe only when the loss never covers the prefix: the prefix's hidden
states and state carry no gradient (they are detached), so the weights learn nothing from *how* the
constant prefix is read: backpropagation through time is cut at the prefix's end. The prefix stops
before the first of ``stop_token_ids`` (the assistant marker): the position before that marker
predicts the marker itself, never a trained token, so no loss term is read off a detached state. The suffix's
tokens, outputs and losses are the same as a full run's (the state after the prefix is identical
for every row, up to float summation order). Rows that differ inside the prefix, a left-padded
batch, evaluation mode, an explicit ``state`` or ``output_hidden_states`` take the plain forward.

Packed rows (TRL's ``packing=True`` / ``padding_free=True``: one row of documents, ``position_ids``
restarting at 0) get the same: the documents' common prefix runs once, is cut out of every document,
and each document starts from its state (the backbone's ``document_state``); the cut positions get the
prefix's hidden states back, so the loss and logits line up with the row TRL built.
"""

from __future__ import annotations

import functools

import torch
from transformers import PreTrainedModel

from rusty_hf.models.tiny_rwkv.packing import PACKING_KWARGS, Documents, document_starts

MIN_SHARED_TOKENS = 16  # below this the extra one-row pass costs more than it saves


def common_prefix_length(input_ids: torch.Tensor, attention_mask: torch.Tensor | None) -> int:
    """Leading positions at which every row holds the same real (unmasked) token."""
    same = (input_ids == input_ids[:1]).all(dim=0)
    if attention_mask is not None:
        same &= attention_mask.bool().all(dim=0)
    differing = (~same).nonzero()
    return int(differing[0, 0]) if len(differing) else input_ids.shape[1]


def _stop_before(tokens: torch.Tensor, shared: int, stops: torch.Tensor) -> int:
    """`shared`, cut before the first stop token among ``tokens[:shared]``."""
    if shared and len(stops):
        at_stop = torch.isin(tokens[:shared], stops.to(tokens.device)).nonzero()
        return int(at_stop[0, 0]) if len(at_stop) else shared
    return shared


def _packed_forward(original, input_ids, attention_mask, docs: Documents, stops, min_tokens, kwargs):
    """The packed row's forward with its documents' common prefix run once; None where that does not apply."""
    if input_ids.shape[0] != 1 or not bool(docs.starts[0, 0]):
        return None
    if attention_mask is not None and not bool(attention_mask.bool().all()):
        return None
    laid_out = docs.to_docs(input_ids)  # (n_docs, longest), zeros past each end
    span = int(torch.bincount(docs.doc, minlength=docs.n_docs).min()) - 1  # each document keeps a position of its own
    shared = _stop_before(laid_out[0], common_prefix_length(laid_out[:, :span], None), stops)
    if shared < min_tokens:
        return None
    with torch.no_grad():
        head = original(input_ids=laid_out[:1, :shared], use_cache=True, return_dict=True)
    keep = docs.offset >= shared  # (T,): the positions each document runs itself
    rest = {k: v for k, v in kwargs.items() if k not in (*PACKING_KWARGS, "position_ids", "return_dict")}
    out = original(input_ids=input_ids[:, keep], position_ids=(docs.offset[keep] - shared)[None],
                   document_state=head.state, **rest, return_dict=True)  # fmt: skip
    hidden = out.last_hidden_state
    full = hidden.new_empty((1, input_ids.shape[1], hidden.shape[-1]))
    full[:, keep] = hidden
    full[:, ~keep] = head.last_hidden_state[:, docs.offset[~keep]].to(hidden.dtype)
    out.last_hidden_state = full
    return out if kwargs.get("return_dict", True) is not False else out.to_tuple()


def share_batch_prefix(
    model: PreTrainedModel, stop_token_ids: list[int] | tuple[int, ...] = (), min_tokens: int = MIN_SHARED_TOKENS
) -> PreTrainedModel:
    """Make ``model``'s backbone run a training batch's common prefix once (see the module docstring).

    The backbone (``model.base_model``, a TinyRWKVModel) must accept ``state`` and return it with
    ``use_cache=True``. Wrapping is idempotent. Returns ``model``.
    """
    backbone = model.base_model
    stops = torch.tensor(sorted(set(stop_token_ids)), dtype=torch.long)
    if getattr(backbone.forward, "_shares_batch_prefix", False):
        return model
    original = backbone.forward

    @functools.wraps(original)
    def forward(input_ids=None, attention_mask=None, inputs_embeds=None, state=None, **kwargs):
        plain = (not backbone.training or state is not None or input_ids is None or inputs_embeds is not None
                 or kwargs.get("output_hidden_states") or kwargs.get("past_key_values") is not None)  # fmt: skip
        markers = {k: kwargs.get(k) for k in ("position_ids", "cu_seq_lens_q", "seq_idx")}
        if not plain and any(v is not None for v in markers.values()):
            docs = Documents.from_starts(document_starts(tuple(input_ids.shape), input_ids.device, *markers.values()))
            if docs is not None:  # packed rows: their documents' prefix, else each document from the empty state
                packed = _packed_forward(original, input_ids, attention_mask, docs, stops, min_tokens, kwargs)
                if packed is not None:
                    return packed
                plain = True
            elif markers["cu_seq_lens_q"] is not None or markers["seq_idx"] is not None:
                plain = True
        plain = plain or input_ids.shape[0] < 2
        shared = 0 if plain else min(common_prefix_length(input_ids, attention_mask), input_ids.shape[1] - 1)
        shared = _stop_before(input_ids[0], shared, stops) if shared else 0
        if shared < min_tokens:
            return original(input_ids=input_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds,
                            state=state, **kwargs)  # fmt: skip
        batch = input_ids.shape[0]
        with torch.no_grad():
            head = original(input_ids=input_ids[:1, :shared], use_cache=True, return_dict=True)
        start = tuple(part.expand(batch, *part.shape[1:]).contiguous() for part in head.state)
        rest_mask = None if attention_mask is None else attention_mask[:, shared:]
        if kwargs.get("position_ids") is not None:  # one document a row: its positions go on from the prefix's
            kwargs = {**kwargs, "position_ids": kwargs["position_ids"][:, shared:]}
        out = original(input_ids=input_ids[:, shared:], attention_mask=rest_mask, state=start,
                       **{**kwargs, "return_dict": True})  # fmt: skip
        out.last_hidden_state = torch.cat([head.last_hidden_state.expand(batch, -1, -1), out.last_hidden_state], dim=1)
        return out if kwargs.get("return_dict", True) is not False else out.to_tuple()

    forward._shares_batch_prefix = True
    backbone.forward = forward
    return model
