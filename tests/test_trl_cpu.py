"""TRL's fused LM head compacted on CPU gives the same log-probs and gradients as the uncompacted path."""

import torch
from trl.trainer.utils import add_fused_lm_head

import trl.trainer.utils as trl_utils
from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.trl_cpu import compact_fused_head_on_cpu
from tests.conftest import randomise_zero_init, tiny_config


def _logps_and_grads(model, input_ids, labels):
    model.zero_grad()
    out = model(input_ids=input_ids, labels=labels, fused_lm_head=True)
    out.log_probs.sum().backward()
    return out.log_probs.detach(), model.lm_head.weight.grad.clone(), model.model.emb.weight.grad.clone()


def test_compaction_on_cpu_changes_nothing_but_the_work(monkeypatch):
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config()))
    add_fused_lm_head(model, outputs=("log_probs", "entropy"))
    input_ids = torch.randint(2, 99, (3, 12))
    labels = input_ids.clone()
    labels[:, :8] = -100  # a prompt, as GRPO and assistant-only SFT mask it
    labels[1, -2:] = -100
    monkeypatch.setattr(trl_utils, "_use_triton", trl_utils._use_triton)  # restored after the test
    reference = _logps_and_grads(model, input_ids, labels)
    assert compact_fused_head_on_cpu() and compact_fused_head_on_cpu()  # idempotent
    compacted = _logps_and_grads(model, input_ids, labels)
    for ref, new in zip(reference, compacted):
        torch.testing.assert_close(new, ref, rtol=1e-4, atol=1e-5)  # summation order only
