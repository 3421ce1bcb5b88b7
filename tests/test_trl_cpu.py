"""TRL's fused LM head on CPU (rusty_hf/training/trl_cpu.py): compacted and folded by torch's kernels, it gives
TRL's own log-probs, entropy, metrics and gradients."""

import pytest
import torch
from trl.kernels import ChunkedLogProbFunction
from trl.trainer.utils import add_fused_lm_head

import rusty_hf.training.trl_cpu as trl_cpu
import trl.trainer.utils as trl_utils
from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.trl_cpu import CpuTokenLogProbs, fused_head_on_cpu
from tests.conftest import randomise_zero_init, tiny_config

OUTPUTS = ("entropy", "log_sum_sq_probs", "mean_logits", "is_top1")


def _fold(function, hidden, weight, bias, targets, grads, **transform):
    hidden, weight = hidden.clone().requires_grad_(), weight.clone().requires_grad_()
    bias = None if bias is None else bias.clone().requires_grad_()
    log_probs, entropy, log_sum_sq, mean, top1 = function.apply(
        hidden, weight, bias, targets, transform.get("temperature", 1.0), 32768, transform.get("softcap"),
        transform.get("logit_scale", 1.0), OUTPUTS)
    (log_probs * grads[0] + entropy * grads[1]).sum().backward()
    return [log_probs, entropy, log_sum_sq, mean, top1.float(), hidden.grad, weight.grad,
            *([] if bias is None else [bias.grad])]


@pytest.mark.parametrize("transform", [{}, {"temperature": 0.7, "softcap": 3.0, "logit_scale": 1.5}])
@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("kept", [True, False])  # logits kept for the backward, or token chunks recomputed
def test_cpu_fold_matches_trls(monkeypatch, transform, with_bias, kept):
    torch.manual_seed(0)
    n, width, vocab = 37, 16, 300
    hidden, weight = torch.randn(n, width), torch.randn(vocab, width) * 0.5
    bias = torch.randn(vocab) * 0.1 if with_bias else None
    targets = torch.randint(0, vocab, (n,))
    targets[:5] = (hidden[:5] @ weight.t()).argmax(-1)  # some top-1 hits
    grads = (torch.randn(n), torch.randn(n))  # a log-prob loss and an entropy bonus
    if not kept:
        monkeypatch.setattr(trl_cpu, "MAX_KEPT_LOGITS", 10 * vocab)  # chunks of 10 rows
    reference = _fold(ChunkedLogProbFunction, hidden, weight, bias, targets, grads, **transform)
    ours = _fold(CpuTokenLogProbs, hidden, weight, bias, targets, grads, **transform)
    assert reference[4].sum() >= 5
    for ref, new in zip(reference, ours, strict=True):
        torch.testing.assert_close(new, ref, rtol=1e-4, atol=1e-5)


def test_cpu_fold_under_bf16_autocast_keeps_fp32_logits():
    torch.manual_seed(1)
    hidden, weight, targets = torch.randn(9, 8), torch.randn(50, 8), torch.randint(0, 50, (9,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        reference = _fold(ChunkedLogProbFunction, hidden, weight, None, targets, (torch.ones(9), torch.zeros(9)))
        ours = _fold(CpuTokenLogProbs, hidden, weight, None, targets, (torch.ones(9), torch.zeros(9)))
    assert ours[0].dtype == torch.float32
    for ref, new in zip(reference, ours, strict=True):
        torch.testing.assert_close(new, ref, rtol=2e-2, atol=2e-2)  # bf16 GEMMs in both, summed in other orders


def test_a_tie_with_an_earlier_token_is_not_top1():
    hidden = torch.ones(2, 1)
    weight = torch.tensor([[1.0], [1.0], [0.0]])  # tokens 0 and 1 tie
    out = CpuTokenLogProbs.apply(hidden, weight, None, torch.tensor([0, 1]), 1.0, 8, None, 1.0, ("is_top1",))
    assert out[4].tolist() == [True, False]


def _logps_and_grads(model, input_ids, labels):
    model.zero_grad()
    out = model(input_ids=input_ids, labels=labels, fused_lm_head=True)
    (out.log_probs.sum() + 0.1 * out.entropy.sum()).backward()
    return (out.log_probs.detach(), out.entropy.detach(), model.lm_head.weight.grad.clone(),
            model.model.emb.weight.grad.clone())


def test_the_patched_head_changes_nothing_but_the_work(monkeypatch):
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config()))
    add_fused_lm_head(model, outputs=("log_probs", "entropy"))
    input_ids = torch.randint(2, 99, (3, 12))
    labels = input_ids.clone()
    labels[:, :8] = -100  # a prompt, as GRPO and assistant-only SFT mask it
    labels[1, -2:] = -100
    # restored after the test
    monkeypatch.setattr(trl_utils, "_use_triton", trl_utils._use_triton)
    monkeypatch.setattr(trl_utils, "_ChunkedLogProbFunction", trl_utils._ChunkedLogProbFunction)
    reference = _logps_and_grads(model, input_ids, labels)
    assert fused_head_on_cpu() and fused_head_on_cpu()  # idempotent
    assert trl_utils._ChunkedLogProbFunction.original is ChunkedLogProbFunction
    patched = _logps_and_grads(model, input_ids, labels)
    for ref, new in zip(reference, patched, strict=True):
        torch.testing.assert_close(new, ref, rtol=5e-4, atol=1e-5)  # summation order only (fp32 sums of ~30)


def test_an_all_masked_micro_batch_gives_a_differentiable_zero(monkeypatch):
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config()))
    add_fused_lm_head(model, outputs=("log_probs", "entropy", "is_top1"))
    monkeypatch.setattr(trl_utils, "_use_triton", trl_utils._use_triton)
    monkeypatch.setattr(trl_utils, "_ChunkedLogProbFunction", trl_utils._ChunkedLogProbFunction)
    assert fused_head_on_cpu()
    input_ids = torch.randint(2, 99, (2, 6))
    out = model(input_ids=input_ids, labels=torch.full_like(input_ids, -100), fused_lm_head=True)
    out.log_probs.sum().backward()  # TRL's path for no labelled rows: zeros, still connected to the model
    assert out.log_probs.abs().sum() == 0 and model.lm_head.weight.grad is not None
