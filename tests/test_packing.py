"""Packed rows (TRL's padding-free and bfd packing, transformers' DataCollatorWithFlattening) equal separate documents.

Each collator is the library's own; its batch goes to the model as a Trainer would send it. Logits, the loss,
the gradients and the value head of the packed row must equal those of the documents run one by one, in every
WKV backend (PyTorch, the compiled CPU kernel, Triton under its CPU interpreter).
"""

from __future__ import annotations

import pytest
import torch
from transformers import DataCollatorWithFlattening

from rusty_hf import TinyRWKVForCausalLM, TinyRWKVForCausalLMWithValueHead
from rusty_hf.models.tiny_rwkv import TinyRWKVCache
from rusty_hf.models.tiny_rwkv.packing import Documents, document_starts
from tests.conftest import randomise_zero_init, tiny_config

LENGTHS = (5, 11, 1, 3, 8)  # a one-token document included


def _docs(seed: int = 0) -> list[list[int]]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randint(2, 99, (n,), generator=gen).tolist() for n in LENGTHS]


def _model(cls=TinyRWKVForCausalLM) -> torch.nn.Module:
    torch.manual_seed(0)
    return randomise_zero_init(cls(tiny_config()))


def _trl_padding_free(docs):
    from trl.trainer.sft_trainer import DataCollatorForLanguageModeling

    return DataCollatorForLanguageModeling(pad_token_id=1, padding_free=True)([{"input_ids": d} for d in docs])


def _flattening(docs, **flags):
    return DataCollatorWithFlattening(**flags)([{"input_ids": d} for d in docs])


def _close(got: torch.Tensor, want: torch.Tensor, rtol: float = 1e-5) -> None:
    got, want = got.detach(), want.detach()
    torch.testing.assert_close(got, want, rtol=rtol, atol=rtol * float(want.abs().max().clamp(min=1)))


def _separate(model, docs):
    """Logits, the mean loss over the documents' predicted tokens, and its gradients, one document at a time."""
    model.zero_grad()
    outs = [model(torch.tensor([d]), labels=torch.tensor([d])) for d in docs]
    predicted = sum(len(d) - 1 for d in docs)
    loss = sum(out.loss * (len(d) - 1) for out, d in zip(outs, docs) if len(d) > 1) / predicted
    loss.backward()
    grads = {name: p.grad.clone() for name, p in model.named_parameters()}
    return torch.cat([out.logits[0] for out in outs]), loss.detach(), grads, outs


def _packed(model, batch):
    model.zero_grad()
    out = model(**batch)
    out.loss.backward()
    return out, {name: p.grad.clone() for name, p in model.named_parameters()}


def _assert_packed_equals_separate(model, batch, docs):
    want_logits, want_loss, want_grads, _ = _separate(model, docs)
    out, grads = _packed(model, batch)
    _close(out.logits[0], want_logits)
    _close(out.loss.detach(), want_loss)
    for name, grad in grads.items():
        _close(grad, want_grads[name])


@pytest.mark.parametrize("backend", ["torch", "cpp", "triton"])
def test_trl_padding_free_batch_equals_separate_documents_in_every_backend(backend, monkeypatch):
    if backend == "triton":
        pytest.importorskip("triton")
    monkeypatch.setenv("RUSTY_WKV_BACKEND", backend)
    docs = _docs()
    batch = _trl_padding_free(docs)
    assert batch["input_ids"].shape == (1, sum(LENGTHS)) and "attention_mask" not in batch
    _assert_packed_equals_separate(_model(), batch, docs)


@pytest.mark.parametrize("marker", ["position_ids", "cu_seq_lens_q", "seq_idx"])
def test_each_document_marker_of_the_flattening_collator_alone_keeps_documents_apart(marker):
    docs = _docs(1)
    full = _flattening(docs, return_flash_attn_kwargs=True, return_seq_idx=True, return_position_ids=True)
    batch = {"input_ids": full["input_ids"], "labels": full["labels"], marker: full[marker]}
    _assert_packed_equals_separate(_model(), batch, docs)


def test_the_value_head_of_a_packed_row_equals_each_documents_values():
    model = _model(TinyRWKVForCausalLMWithValueHead).eval()
    docs = _docs(2)
    batch = _trl_padding_free(docs)
    with torch.no_grad():
        packed = model(batch["input_ids"], position_ids=batch["position_ids"]).value[0]
        separate = torch.cat([model(torch.tensor([d])).value[0] for d in docs])
    _close(packed, separate)


def test_without_markers_documents_read_each_other_which_is_what_the_markers_prevent():
    model = _model().eval()
    docs = _docs(3)
    batch = _trl_padding_free(docs)
    with torch.no_grad():
        marked = model(batch["input_ids"], position_ids=batch["position_ids"]).logits
        unmarked = model(batch["input_ids"]).logits
    assert (marked - unmarked).abs().max() > 1e-3


def test_a_packed_row_with_gradient_checkpointing_gives_the_same_gradients():
    docs = _docs(4)
    batch = _trl_padding_free(docs)
    model = _model()
    _, plain = _packed(model, batch)
    model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    _, checkpointed = _packed(model, batch)
    for name, grad in checkpointed.items():
        _close(grad, plain[name])


def test_the_state_after_a_packed_row_is_its_last_documents_state():
    model = _model().eval()
    docs = _docs(5)
    batch = _trl_padding_free(docs)
    with torch.no_grad():
        packed = model(batch["input_ids"], position_ids=batch["position_ids"], use_cache=True)
        last = model(torch.tensor([docs[-1]]), use_cache=True)
    for got, want in zip(packed.past_key_values.state, last.past_key_values.state):
        _close(got, want)


def test_a_row_that_starts_a_new_document_forgets_the_incoming_cache():
    model = _model().eval()
    ids = torch.randint(2, 99, (1, 6))
    with torch.no_grad():
        cache = model(torch.randint(2, 99, (1, 4)), use_cache=True).past_key_values
        restarted = model(ids, position_ids=torch.arange(6)[None], past_key_values=cache).logits
        continued_cache = model(torch.randint(2, 99, (1, 4)), use_cache=True).past_key_values
        continued = model(ids, position_ids=torch.arange(4, 10)[None], past_key_values=continued_cache).logits
        alone = model(ids).logits
    _close(restarted, alone)
    assert (continued - alone).abs().max() > 1e-3


def test_two_packed_rows_in_one_batch_keep_their_documents_apart():
    model = _model().eval()
    docs = _docs(6)
    rows = [docs[:2], docs[2:]]
    width = max(sum(map(len, r)) for r in rows)
    ids = torch.ones(2, width, dtype=torch.long)
    positions = torch.zeros(2, width, dtype=torch.long)
    for i, row in enumerate(rows):
        flat = [t for d in row for t in d]
        ids[i, : len(flat)] = torch.tensor(flat)
        positions[i, : len(flat)] = torch.cat([torch.arange(len(d)) for d in row])
        positions[i, len(flat) :] = torch.arange(1, width - len(flat) + 1) + positions[i, len(flat) - 1]
    with torch.no_grad():
        packed = model(ids, position_ids=positions).logits
        for i, row in enumerate(rows):
            start = 0
            for d in row:
                _close(packed[i, start : start + len(d)], model(torch.tensor([d])).logits[0])
                start += len(d)


def test_document_starts_reads_every_marker_alike():
    docs = _docs(7)
    full = _flattening(docs, return_flash_attn_kwargs=True, return_seq_idx=True, return_position_ids=True)
    shape = full["input_ids"].shape
    got = [document_starts(shape, torch.device("cpu"), **{k: full[v]})
           for k, v in (("position_ids", "position_ids"), ("cu_seq_lens", "cu_seq_lens_q"), ("seq_idx", "seq_idx"))]
    assert all(torch.equal(g, got[0]) for g in got) and int(got[0].sum()) == len(LENGTHS)
    docs_layout = Documents.from_starts(got[0])
    assert docs_layout.n_docs == len(LENGTHS) and docs_layout.length == max(LENGTHS)


def test_a_marker_that_does_not_fit_the_batch_is_refused_naming_the_shape():
    with pytest.raises(ValueError, match="cu_seq_lens_q"):
        document_starts((1, 10), torch.device("cpu"), cu_seq_lens=torch.tensor([0, 4, 9]))
    with pytest.raises(ValueError, match="position_ids must be"):
        document_starts((2, 10), torch.device("cpu"), position_ids=torch.zeros(2, 9, dtype=torch.long))


def test_a_cache_that_is_not_tinyrwkvs_is_refused_with_the_fix():
    from transformers import DynamicCache

    model = _model().eval()
    with pytest.raises(TypeError, match="TinyRWKVCache"):
        model(torch.randint(2, 99, (1, 3)), past_key_values=DynamicCache())
    assert isinstance(model(torch.randint(2, 99, (1, 3)), use_cache=True).past_key_values, TinyRWKVCache)


@pytest.mark.parametrize("backend", ["torch", "cpp", "triton"])
def test_documents_start_from_a_given_document_state_in_every_backend(backend, monkeypatch):
    """`document_state` (a shared prompt's state, as training/shared_prefix.py passes it): every packed
    document starts from it, as if each ran separately from that state; the same weight gradients."""
    if backend == "triton":
        pytest.importorskip("triton")
    monkeypatch.setenv("RUSTY_WKV_BACKEND", backend)
    model, docs = _model(), _docs()
    with torch.no_grad():
        start = model.model(input_ids=torch.tensor([[5, 6, 7, 8, 9, 10]]), use_cache=True).state
    batch = _trl_padding_free(docs)
    packed = model.model(input_ids=batch["input_ids"], position_ids=batch["position_ids"], document_state=start,
                         use_cache=True)  # fmt: skip
    weights = torch.randn(packed.last_hidden_state.shape, generator=torch.Generator().manual_seed(1))
    (packed.last_hidden_state * weights).sum().backward()  # not a square: LayerNorm's output has a fixed norm
    got_grads = {name: p.grad.clone() for name, p in model.named_parameters() if p.grad is not None}
    model.zero_grad()
    separate = [model.model(input_ids=torch.tensor([d]), state=start, use_cache=True) for d in docs]
    want_hidden = torch.cat([out.last_hidden_state for out in separate], dim=1)
    (want_hidden * weights).sum().backward()
    _close(packed.last_hidden_state, want_hidden)
    assert got_grads
    for name, grad in got_grads.items():
        _close(grad, dict(model.named_parameters())[name].grad)
    for got, want in zip(packed.state, separate[-1].state):  # the state after the row: its last document's
        _close(got, want)
