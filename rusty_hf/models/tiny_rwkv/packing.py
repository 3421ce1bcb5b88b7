"""Packed rows: several documents in one row, each read from an empty state, as if run separately.

TRL's `packing=True` (bfd) and `padding_free=True`, and transformers' `DataCollatorWithFlattening`,
put several documents end to end in one row and mark where each starts: `position_ids` that restart
at 0, `cu_seq_lens_q` (cumulative lengths over the flattened batch) or `seq_idx` (a document number per
position). Attention models turn those into a block-diagonal mask. A recurrent model must instead reset
its state at each start: the token shift sees zeros there, and the WKV recurrence starts from the empty
state. Otherwise every document reads its predecessor's state and the packed loss differs from the
separate documents' loss.

`document_starts` reads any of the three markers into a (B, T) boolean "a document begins here".
`Documents` turns the starts into gather indices that lay the documents out one per row of a padded
(n_docs, longest, C) tensor, so the WKV, which runs any backend (Triton, PyTorch, the CPU kernels)
with a padding mask, computes every document from its own empty state; `wkv_documents` runs it and
scatters the outputs back. Only the WKV and the token shift need the documents: every other layer works
per position. The position right before a start never predicts the next document's first token
(`boundary_labels`).

A row's first document continues the incoming state (generation's carried state) unless the row
starts with a marker for a new document (`position_ids[:, 0] == 0`), in which case it starts empty.
Imports only torch and modules of this folder (remote code).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch

from .wkv import WKVState, empty_wkv_state, wkv

PACKING_KWARGS = ("cu_seq_lens_q", "cu_seq_lens_k", "max_length_q", "max_length_k", "seq_idx")


def document_starts(
    shape: tuple[int, int],
    device: torch.device,
    position_ids: torch.Tensor | None = None,
    cu_seq_lens: torch.Tensor | None = None,
    seq_idx: torch.Tensor | None = None,
) -> torch.Tensor | None:
    """(B, T) bool, True where a document begins; None when nothing marks documents.

    `position_ids` (B, T) or (T,): a 0 starts a document. `cu_seq_lens` (D + 1,): offsets into the
    flattened (B * T) positions. `seq_idx` (B, T): a new number starts a document. Markers that are
    given are combined (a collator that sends several sends consistent ones).
    """
    B, T = shape
    starts = None
    if position_ids is not None:
        position_ids = position_ids.to(device)
        if position_ids.dim() == 1:
            position_ids = position_ids.unsqueeze(0)
        if tuple(position_ids.shape) != (B, T):
            raise ValueError(f"position_ids must be (batch, seq_len) = {(B, T)}, got {tuple(position_ids.shape)}")
        starts = position_ids == 0
    if cu_seq_lens is not None:
        offsets = cu_seq_lens.to(device=device, dtype=torch.long)
        if offsets.dim() != 1 or int(offsets[-1]) != B * T:
            raise ValueError(
                f"cu_seq_lens_q must be 1-D cumulative lengths ending at batch * seq_len = {B * T}, got {offsets.tolist()}"
            )
        flat = torch.zeros(B * T, dtype=torch.bool, device=device)
        flat[offsets[:-1]] = True
        starts = flat.view(B, T) if starts is None else starts | flat.view(B, T)
    if seq_idx is not None:
        seq_idx = seq_idx.to(device).view(B, T)
        changes = torch.ones_like(seq_idx, dtype=torch.bool)
        changes[:, 1:] = seq_idx[:, 1:] != seq_idx[:, :-1]
        starts = changes if starts is None else starts | changes
    return starts


@dataclass
class Documents:
    """Gather indices from the (B, T) positions of packed rows to a padded (n_docs, length) layout."""

    starts: torch.Tensor  # (B, T) bool: the state resets before these positions
    doc: torch.Tensor  # (B * T,) the document each position belongs to
    offset: torch.Tensor  # (B * T,) its position inside that document
    row: torch.Tensor  # (n_docs,) the row each document lies in
    continues: torch.Tensor  # (n_docs,) bool: the document carries its row's incoming state
    last: torch.Tensor  # (B,) each row's last document
    n_docs: int
    length: int
    # Where every new document starts instead of the empty state: (att_shift, att_a, att_b, att_p, ffn_shift),
    # each (1, C), one layer's part of the backbone's `document_state` (`for_layer`); None: the empty state.
    start: tuple[torch.Tensor, ...] | None = None

    def for_layer(self, state: tuple[torch.Tensor, ...] | None, layer: int) -> Documents:
        """These documents, starting from layer `layer`'s part of `state` (five (1, n_layers, C) tensors)."""
        if state is None:
            return self
        return dataclasses.replace(self, start=tuple(part[:, layer] for part in state))

    @classmethod
    def from_starts(cls, starts: torch.Tensor | None) -> Documents | None:
        """None unless some row holds more than one document (then nothing differs from a plain batch)."""
        if starts is None or starts.shape[1] < 2 or not bool(starts[:, 1:].any()):
            return None
        B, T = starts.shape
        begins = starts.clone()
        begins[:, 0] = True  # every row's first position begins a document, new or continued
        doc = begins.view(-1).long().cumsum(0) - 1  # (B * T,) numbered across rows
        n_docs = int(doc[-1]) + 1
        first = torch.nonzero(begins.view(-1)).squeeze(1)  # (n_docs,) flat index of each document's first position
        positions = torch.arange(B * T, device=starts.device)
        offset = positions - first[doc]
        lengths = torch.bincount(doc, minlength=n_docs)
        row = first // T
        continues = (first % T == 0) & ~starts.view(-1)[first]
        last = doc.view(B, T)[:, -1]
        return cls(starts, doc, offset, row, continues, last, n_docs, int(lengths.max()))

    def to_docs(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, ...) -> (n_docs, length, ...), zeros past each document's end."""
        flat = x.reshape(-1, *x.shape[2:])
        out = flat.new_zeros((self.n_docs, self.length, *x.shape[2:]))
        return out.index_put((self.doc, self.offset), flat)

    def from_docs(self, y: torch.Tensor, shape: torch.Size) -> torch.Tensor:
        """(n_docs, length, ...) -> (B, T, ...)."""
        return y[self.doc, self.offset].view(*shape[:2], *y.shape[2:])



def boundary_labels(labels: torch.Tensor, starts: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    """`labels` shifted for next-token loss, with no prediction from one document into the next."""
    shifted = torch.nn.functional.pad(labels, (0, 1), value=ignore_index)[..., 1:]
    ends = torch.zeros_like(starts)
    ends[:, :-1] = starts[:, 1:]  # the last position of a document, when another follows in its row
    return shifted.masked_fill(ends, ignore_index)


def shift_with_starts(shifted: torch.Tensor, starts: torch.Tensor, start: torch.Tensor | None = None) -> torch.Tensor:
    """The token shift's x_{t-1} where a document starts: zero (its empty state), or `start` ((1, C))."""
    if start is None:
        return shifted.masked_fill(starts[:, :, None], 0.0)
    return torch.where(starts[:, :, None], start.to(shifted.dtype)[:, None, :], shifted)


def wkv_documents(
    w: torch.Tensor,
    u: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    state: WKVState,
    mask: torch.Tensor | None,
    docs: Documents,
) -> tuple[torch.Tensor, WKVState]:
    """`wkv` over each document of packed rows from its own start state; the state after each row's last one.

    A document starts from the empty state, or from `docs.start` where given, unless it continues its row's
    incoming state.

    k, v: (B, T, C); state: (a, b, p), each (B, C); mask: (B, T) or None."""
    B, T, C = k.shape
    real = torch.ones(B, T, dtype=torch.long, device=k.device) if mask is None else (mask != 0).long()
    doc_mask = docs.to_docs(real)  # 0 past each document's end: the WKV leaves the state alone there
    if docs.start is None:
        empty = empty_wkv_state(docs.n_docs, C, k.device)
    else:  # every new document starts from the given state (a shared prompt's, say)
        empty = tuple(part.float().expand(docs.n_docs, C) for part in docs.start[1:4])
    keep = docs.continues[:, None]
    doc_state = tuple(torch.where(keep, s[docs.row], e) for s, e in zip(state, empty))
    y, (a, b, p) = wkv(w, u, docs.to_docs(k), docs.to_docs(v), doc_state, doc_mask)
    return docs.from_docs(y, k.shape), (a[docs.last], b[docs.last], p[docs.last])


__all__ = ["Documents", "PACKING_KWARGS", "boundary_labels", "document_starts", "shift_with_starts", "wkv_documents"]
