"""share_batch_prefix: the batch's common prompt runs once; the suffix's outputs and losses are unchanged."""

import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.shared_prefix import common_prefix_length, share_batch_prefix
from tests.conftest import randomise_zero_init, tiny_config

STOP = 7  # plays the assistant marker


def _batch(prefix_len: int = 20) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    prefix = torch.randint(10, 99, (prefix_len,), generator=gen)
    rows = [torch.cat([prefix, torch.randint(10, 99, (n,), generator=gen), torch.tensor([STOP]),
                       torch.randint(10, 99, (5,), generator=gen)]) for n in (3, 6, 4)]  # fmt: skip
    length = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), length, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, r in enumerate(rows):
        ids[i, : len(r)], mask[i, : len(r)] = r, 1
    labels = torch.full_like(ids, -100)
    for i, r in enumerate(rows):  # the loss covers what follows the marker, as assistant_only_loss does
        at = int((r == STOP).nonzero()[0, 0])
        labels[i, at + 1 : len(r)] = r[at + 1 :]
    return ids, mask, labels


def _model() -> TinyRWKVForCausalLM:
    torch.manual_seed(0)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config()), std=0.3).train()


def _assert_same_gradients(shared_model, ref) -> None:
    for (name, p), q in zip(shared_model.named_parameters(), ref.parameters()):
        if q.grad is None:
            assert p.grad is None or not p.grad.any(), name
        else:
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-4, msg=name)


def test_common_prefix_length_stops_at_the_first_difference_or_padding():
    ids = torch.tensor([[1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 3, 4]])
    assert common_prefix_length(ids, None) == 3
    mask = torch.tensor([[1, 1, 1, 1], [0, 1, 1, 1], [1, 1, 1, 1]])
    assert common_prefix_length(ids, mask) == 0  # left padding: nothing is shared


def test_losses_and_logits_match_the_plain_forward():
    ids, mask, labels = _batch()
    plain, shared = _model(), share_batch_prefix(_model(), stop_token_ids=[STOP])
    a = plain(input_ids=ids, attention_mask=mask, labels=labels)
    b = shared(input_ids=ids, attention_mask=mask, labels=labels)
    assert torch.allclose(a.loss, b.loss, atol=1e-5)
    real = mask.bool()
    assert torch.allclose(a.logits[real], b.logits[real], atol=1e-4)


def test_gradients_are_those_of_a_run_cut_at_the_prefix():
    """Reference: each row's prefix run without gradient, its state handed to the rest (truncated BPTT)."""
    ids, mask, labels = _batch()
    shared_model, ref = share_batch_prefix(_model(), stop_token_ids=[STOP]), _model()
    shared_model(input_ids=ids, attention_mask=mask, labels=labels).loss.backward()
    n = common_prefix_length(ids, mask)
    with torch.no_grad():
        head = ref.model(input_ids=ids[:, :n], use_cache=True)
    rest = ref(input_ids=ids[:, n:], attention_mask=mask[:, n:], state=head.state, use_cache=False)
    logits = torch.cat([ref.lm_head(head.last_hidden_state), rest.logits], dim=1)
    loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
    loss.backward()
    _assert_same_gradients(shared_model, ref)


def test_the_prefix_ends_before_the_stop_token():
    ids, mask, labels = _batch(prefix_len=40)
    ids[:, 20] = STOP  # a marker inside the common prefix: sharing must stop there
    seen = []
    model = _model()
    original = model.model.forward

    def spy(*args, **kwargs):
        seen.append(kwargs["input_ids"].shape)
        return original(*args, **kwargs)

    model.model.forward = spy
    share_batch_prefix(model, stop_token_ids=[STOP])
    model(input_ids=ids, attention_mask=mask, labels=labels)
    assert seen[0] == (1, 20)


def test_eval_mode_and_explicit_state_take_the_plain_forward():
    ids, mask, _ = _batch()
    model = share_batch_prefix(_model(), stop_token_ids=[STOP]).eval()
    plain = _model().eval()
    with torch.no_grad():
        assert torch.allclose(model(input_ids=ids, attention_mask=mask).logits, plain(input_ids=ids, attention_mask=mask).logits)


def test_wrapping_twice_wraps_once():
    model = _model()
    share_batch_prefix(model)
    forward = model.model.forward
    share_batch_prefix(model)
    assert model.model.forward is forward


def _packed(prefix_len: int = 20) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, list[torch.Tensor]]:
    """One row of documents as TRL's padding-free collator lays them out: position_ids restart at 0, the
    first label of each document is -100, the loss covers what follows each document's marker."""
    ids, mask, labels = _batch(prefix_len)
    docs = [row[m.bool()] for row, m in zip(ids, mask)]
    doc_labels = [row[m.bool()] for row, m in zip(labels, mask)]
    position_ids = torch.cat([torch.arange(len(d)) for d in docs])[None]
    return torch.cat(docs)[None], position_ids, torch.cat(doc_labels)[None], docs


def test_packed_rows_share_their_documents_prefix_and_match_the_plain_packed_forward():
    ids, position_ids, labels, docs = _packed()
    seen = []
    model = _model()
    original = model.model.forward

    def spy(*args, **kwargs):
        seen.append((tuple(kwargs["input_ids"].shape), kwargs.get("document_state") is not None))
        return original(*args, **kwargs)

    model.model.forward = spy
    share_batch_prefix(model, stop_token_ids=[STOP])
    plain = _model()
    a = plain(input_ids=ids, position_ids=position_ids, labels=labels)
    b = model(input_ids=ids, position_ids=position_ids, labels=labels)
    shared = 20  # the documents' common prompt, run once
    assert seen == [((1, shared), False), ((1, ids.shape[1] - shared * len(docs)), True)]
    torch.testing.assert_close(b.loss, a.loss, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(b.logits, a.logits, rtol=1e-5, atol=1e-5)
    separate = torch.cat([plain(input_ids=d[None]).logits for d in docs], dim=1)
    torch.testing.assert_close(b.logits, separate, rtol=1e-5, atol=1e-5)


def test_packed_gradients_are_those_of_documents_cut_at_the_prefix():
    ids, position_ids, labels, docs = _packed()
    shared_model, ref = share_batch_prefix(_model(), stop_token_ids=[STOP]), _model()
    shared_model(input_ids=ids, position_ids=position_ids, labels=labels).loss.backward()
    with torch.no_grad():
        head = ref.model(input_ids=docs[0][None, :20], use_cache=True)
    logits, targets, at = [], [], 0
    for d in docs:
        rest = ref(input_ids=d[None, 20:], state=head.state, use_cache=False)
        doc_logits = torch.cat([ref.lm_head(head.last_hidden_state), rest.logits], dim=1)[0]
        logits.append(doc_logits[:-1])
        targets.append(labels[0, at + 1 : at + len(d)])
        at += len(d)
    torch.nn.functional.cross_entropy(torch.cat(logits), torch.cat(targets)).backward()
    _assert_same_gradients(shared_model, ref)


def test_packed_documents_that_share_too_little_run_from_the_empty_state():
    ids, position_ids, labels, docs = _packed(prefix_len=4)  # below MIN_SHARED_TOKENS
    model, plain = share_batch_prefix(_model(), stop_token_ids=[STOP]), _model()
    a = plain(input_ids=ids, position_ids=position_ids, labels=labels)
    b = model(input_ids=ids, position_ids=position_ids, labels=labels)
    torch.testing.assert_close(b.logits, a.logits, rtol=0, atol=0)
