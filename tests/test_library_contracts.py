"""What transformers, PEFT, torch and TRL do to a model, checked against a fresh model given the same weights.

The model must not remember anything about its weights across calls: after any update (a fused or foreach
optimizer step, a `.data` edit, a PEFT merge, `load_state_dict`, a resize, a dtype round trip, a DDP or FSDP2 step) its
no-grad forward and `generate` give what a model freshly loaded from the updated state dict gives, for inputs
on both sides of the few-row limit under which CPU inference uses packed weight copies.
"""

from __future__ import annotations

import copy

import pytest
import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.models.tiny_rwkv.cpu_kernels import PACKED_LINEAR_MAX_ROWS
from tests.conftest import randomise_zero_init, tiny_config

FEW_ROWS = (2, 3)  # a decoding-sized forward: the packed-weight path when it is allowed
MANY_ROWS = (2, PACKED_LINEAR_MAX_ROWS // 2 + 7)  # more rows than that path takes


def _model(seed: int = 0) -> TinyRWKVForCausalLM:
    torch.manual_seed(seed)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config()), seed=seed).eval()


def _fresh_copy(model: torch.nn.Module) -> TinyRWKVForCausalLM:
    fresh = TinyRWKVForCausalLM(model.config).eval()
    fresh.load_state_dict({k: v.detach().clone() for k, v in model.state_dict().items()})
    return fresh


def _use(model: torch.nn.Module) -> None:
    """Every inference path once: few and many rows, and a generation (where copies may be made)."""
    with torch.no_grad():
        for shape in (FEW_ROWS, MANY_ROWS):
            model(torch.randint(2, 99, shape))
    model.generate(torch.randint(2, 99, FEW_ROWS), max_new_tokens=3, do_sample=False, pad_token_id=1)


def _assert_same_as_fresh(model: torch.nn.Module, fresh: torch.nn.Module, atol: float = 1e-4) -> None:
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for shape in (FEW_ROWS, MANY_ROWS):
            ids = torch.randint(2, 99, shape, generator=gen)
            torch.testing.assert_close(model(ids).logits, fresh(ids).logits, rtol=0, atol=atol)
    prompt = torch.randint(2, 99, FEW_ROWS, generator=gen)
    kwargs = dict(max_new_tokens=6, do_sample=False, pad_token_id=1, return_dict_in_generate=True, output_logits=True)
    got, want = model.generate(prompt, **kwargs), fresh.generate(prompt, **kwargs)
    assert got.sequences.tolist() == want.sequences.tolist()
    torch.testing.assert_close(torch.stack(got.logits), torch.stack(want.logits), rtol=0, atol=atol)


def _train_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    model.train()
    ids = torch.randint(2, 99, (2, 9))
    model(ids, labels=ids).loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    model.eval()


@pytest.mark.parametrize("kind", ["fused", "foreach", "for-loop"])
def test_after_an_adamw_step_inference_uses_the_new_weights(kind):
    model = _model()
    _use(model)
    flags = {"fused": dict(fused=True), "foreach": dict(foreach=True), "for-loop": dict(foreach=False)}[kind]
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.05, **flags)
    before = model(torch.randint(2, 99, FEW_ROWS)).logits.detach()
    _train_step(model, optimizer)
    _assert_same_as_fresh(model, _fresh_copy(model))
    assert not torch.allclose(_fresh_copy(model)(torch.randint(2, 99, FEW_ROWS)).logits, before)


def test_after_a_fused_adamw_step_no_grad_and_grad_forwards_agree():
    model = _model()
    _use(model)
    _train_step(model, torch.optim.AdamW(model.parameters(), lr=0.05, fused=True))
    for shape in (FEW_ROWS, MANY_ROWS):
        ids = torch.randint(2, 99, shape)
        with torch.no_grad():
            no_grad = model(ids).logits
        torch.testing.assert_close(no_grad, model(ids).logits.detach(), rtol=0, atol=1e-4)


@pytest.mark.parametrize("edit", ["data_mul", "copy_", "zero_head"])
def test_after_an_in_place_edit_inference_uses_the_new_weights(edit):
    model = _model()
    _use(model)
    with torch.no_grad():
        if edit == "data_mul":  # `.data` has its own version counter: this edit moves nothing a cache could key on
            for param in model.parameters():
                param.data.mul_(1.5)
        elif edit == "copy_":
            model.model.blocks[0].att.key.weight.copy_(torch.randn_like(model.model.blocks[0].att.key.weight))
        else:
            model.lm_head.weight.data.zero_()
    _assert_same_as_fresh(model, _fresh_copy(model))
    if edit == "zero_head":
        assert not model(torch.randint(2, 99, FEW_ROWS)).logits.any()


def test_after_load_state_dict_inference_uses_the_loaded_weights():
    model, other = _model(0), _model(1)
    _use(model)
    model.load_state_dict(other.state_dict())
    _assert_same_as_fresh(model, other)


def test_after_resize_token_embeddings_inference_uses_the_new_tables():
    model = _model()
    _use(model)
    model.resize_token_embeddings(131)
    with torch.no_grad():
        model.lm_head.weight[99:].normal_()
    assert model.lm_head.weight.shape[0] == 131 and model.config.vocab_size == 131
    fresh = TinyRWKVForCausalLM(model.config).eval()
    fresh.load_state_dict(model.state_dict())
    _assert_same_as_fresh(model, fresh)


def test_after_a_dtype_round_trip_inference_uses_the_rounded_weights():
    model = _model()
    _use(model)
    model.to(torch.bfloat16).to(torch.float32)  # every weight rounded to bf16, back in float32 storage
    _assert_same_as_fresh(model, _fresh_copy(model))


def test_peft_merge_and_unload_gives_the_adapter_numbers():
    peft = pytest.importorskip("peft")
    base = _model()
    _use(base)
    ids = torch.randint(2, 99, FEW_ROWS)
    with torch.no_grad():
        base_logits = base(ids).logits
    config = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["key", "value", "receptance", "output", "lm_head"],
                             init_lora_weights=False)  # fmt: skip
    adapted = peft.get_peft_model(base, config).eval()
    with torch.no_grad():
        adapter_logits = adapted(ids).logits
    _use(adapted)
    merged = adapted.merge_and_unload().eval()
    assert type(merged.model.blocks[0].att.key) is torch.nn.Linear
    with torch.no_grad():
        torch.testing.assert_close(merged(ids).logits, adapter_logits, rtol=0, atol=1e-4)
    assert (adapter_logits - base_logits).abs().max() > 1e-2
    _assert_same_as_fresh(merged, _fresh_copy(merged))


def test_peft_merge_then_unmerge_gives_the_base_numbers_back():
    peft = pytest.importorskip("peft")
    base = _model()
    ids = torch.randint(2, 99, FEW_ROWS)
    with torch.no_grad():
        base_logits = base(ids).logits.clone()
    adapted = peft.get_peft_model(base, peft.LoraConfig(r=4, target_modules=["key", "value"], init_lora_weights=False))
    adapted.eval()
    adapted.merge_adapter()
    _use(adapted)
    adapted.unmerge_adapter()
    with adapted.disable_adapter(), torch.no_grad():
        torch.testing.assert_close(adapted(ids).logits, base_logits, rtol=0, atol=1e-5)


@pytest.mark.parametrize("wrapper", ["ddp", "fsdp2"])
def test_after_a_ddp_or_fsdp2_step_inference_uses_the_new_weights(tmp_path, wrapper):
    import torch.distributed as dist

    store = dist.FileStore(str(tmp_path / "store"), 1)
    dist.init_process_group("gloo", store=store, rank=0, world_size=1)
    try:
        model = _model()
        _use(model)
        if wrapper == "ddp":
            from torch.nn.parallel import DistributedDataParallel

            wrapped = DistributedDataParallel(model)
        else:  # parameters become sharded DTensors; each forward gathers them
            from torch.distributed.device_mesh import init_device_mesh
            from torch.distributed.fsdp import fully_shard

            mesh = init_device_mesh("cpu", (1,))
            for block in model.model.blocks:
                fully_shard(block, mesh=mesh)
            wrapped = fully_shard(model, mesh=mesh)
        optimizer = torch.optim.AdamW(wrapped.parameters(), lr=0.05, fused=True)
        ids = torch.randint(2, 99, (2, 9))
        wrapped.train()
        wrapped(ids, labels=ids).loss.backward()
        optimizer.step()
        model.eval()
        full = {k: v.full_tensor() if hasattr(v, "full_tensor") else v for k, v in model.state_dict().items()}
        fresh = TinyRWKVForCausalLM(model.config).eval()
        fresh.load_state_dict(full)
        _assert_same_as_fresh(model, fresh)
    finally:
        dist.destroy_process_group()


def test_the_decode_graph_step_reads_the_live_weights(monkeypatch):
    """The CUDA-graph decoder replays kernels that read the parameters where they are; its static-buffer
    path (`eager`, any device) shows it on CPU: an in-place edit the version counter misses is seen."""
    monkeypatch.setenv("RUSTY_DECODE_GRAPHS", "eager")
    model = _model()
    _use(model)
    with torch.no_grad():
        for param in model.parameters():
            param.data.mul_(1.3)
    _assert_same_as_fresh(model, _fresh_copy(model))


def test_inside_one_generate_call_the_packed_copies_are_made_once(monkeypatch):
    from rusty_hf.models.tiny_rwkv import inference_cache

    builds = []
    original = inference_cache.packed_linear_weight
    monkeypatch.setattr(inference_cache, "packed_linear_weight", lambda w: builds.append(1) or original(w))
    model = _model()
    model.generate(torch.randint(2, 99, (1, 3)), max_new_tokens=5, min_new_tokens=5, do_sample=False)
    per_call = len(builds)
    model.generate(torch.randint(2, 99, (1, 3)), max_new_tokens=5, min_new_tokens=5, do_sample=False)
    n_linears = sum(type(m) is torch.nn.Linear for m in model.modules())
    if original(torch.zeros(2, 2)) is not None:  # with the compiled kernels: one copy per Linear per call
        assert per_call == n_linears and len(builds) == 2 * n_linears


def test_bf16_autocast_no_grad_forward_equals_the_grad_forward():
    """TRL computes reference log-probs under no_grad and the policy's with grad, both under autocast."""
    model = _model()
    ids = torch.randint(2, 99, FEW_ROWS)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.no_grad():
            no_grad = model(ids).logits
        grad = model(ids).logits.detach()
    torch.testing.assert_close(no_grad, grad, rtol=0, atol=0)


def test_copy_deepcopy_of_a_used_model_is_independent():
    model = _model()
    _use(model)
    twin = copy.deepcopy(model)
    with torch.no_grad():
        model.lm_head.weight.data.mul_(2)
    _assert_same_as_fresh(twin, _fresh_copy(twin))
    _assert_same_as_fresh(model, _fresh_copy(model))


def test_thread_sessions_do_not_leak_into_other_threads():
    import threading

    from rusty_hf.models.tiny_rwkv import decoding_session, inference_cache

    seen = {}
    with decoding_session():
        thread = threading.Thread(target=lambda: seen.setdefault("other", inference_cache.session_cache()))
        thread.start()
        thread.join()
        seen["own"] = inference_cache.session_cache()
    assert seen["other"] is None and seen["own"] is not None and inference_cache.session_cache() is None



def test_sequence_classification_reads_the_last_real_token_under_either_padding():
    from transformers import AutoModelForSequenceClassification

    torch.manual_seed(0)
    model = AutoModelForSequenceClassification.from_config(tiny_config(num_labels=3, pad_token_id=1))
    randomise_zero_init(model).eval()
    row = torch.randint(2, 99, (1, 6))
    left = torch.cat([torch.ones(1, 3, dtype=torch.long), row], 1)
    right = torch.cat([row, torch.ones(1, 3, dtype=torch.long)], 1)
    mask_left = torch.cat([torch.zeros(1, 3), torch.ones(1, 6)], 1).long()
    with torch.no_grad():
        alone = model(row).logits
        torch.testing.assert_close(model(left, attention_mask=mask_left).logits, alone, rtol=0, atol=1e-5)
        torch.testing.assert_close(model(right, attention_mask=mask_left.flip(1)).logits, alone, rtol=0, atol=1e-5)
        torch.testing.assert_close(model(right).logits, alone, rtol=0, atol=1e-5)  # pad_token_id, no mask
    assert alone.shape == (1, 3)


def test_a_causal_lm_checkpoint_loads_into_the_classification_heads_with_its_backbone(tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification

    lm = _model()
    lm.save_pretrained(tmp_path / "lm")
    ids = torch.randint(2, 99, (2, 5))
    for auto in (AutoModelForSequenceClassification, AutoModelForTokenClassification):
        head = auto.from_pretrained(tmp_path / "lm", num_labels=2).eval()
        with torch.no_grad():
            torch.testing.assert_close(head.model(ids).last_hidden_state, lm.model(ids).last_hidden_state)
        head.save_pretrained(tmp_path / auto.__name__)
        again = auto.from_pretrained(tmp_path / auto.__name__).eval()
        with torch.no_grad():
            torch.testing.assert_close(again(ids).logits, head(ids).logits, rtol=0, atol=0)


def test_token_classification_trains_with_transformers_loss():
    from rusty_hf.models.tiny_rwkv import TinyRWKVForTokenClassification

    torch.manual_seed(0)
    model = TinyRWKVForTokenClassification(tiny_config(num_labels=4))
    ids, labels = torch.randint(2, 99, (2, 7)), torch.randint(0, 4, (2, 7))
    labels[0, :2] = -100
    out = model(ids, labels=labels)
    want = torch.nn.functional.cross_entropy(out.logits.reshape(-1, 4), labels.reshape(-1), ignore_index=-100)
    torch.testing.assert_close(out.loss, want)
    out.loss.backward()
    assert model.classifier.weight.grad.abs().sum() > 0
