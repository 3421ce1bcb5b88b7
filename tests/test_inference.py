"""rusty_hf.inference: load_model's modes on CPU, the int8 Linear, errors, and streaming."""

from __future__ import annotations

import itertools

import pytest
import torch
from torch import nn

from rusty_hf import TinyRWKVForCausalLM, TinyRWKVForCausalLMWithValueHead
from rusty_hf.inference import Int8WeightOnlyLinear, load_model, quantize_int8_, stream_reply, weight_bytes
from tests.conftest import randomise_zero_init, tiny_config

PROMPT = torch.tensor([[5, 6, 7, 8, 9, 10]])


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A tiny random checkpoint on disk (vocab 128 so every Linear suits bitsandbytes) and its model."""
    folder = tmp_path_factory.mktemp("tiny")
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=128)), std=0.2).eval()
    model.save_pretrained(folder)
    return folder, model


def _logits(model: nn.Module) -> torch.Tensor:
    with torch.no_grad():
        return model(PROMPT).logits.float()


def test_unknown_quantization_names_the_choices(saved):
    with pytest.raises(ValueError, match="none, int8, 4bit"):
        load_model(saved[0], quantization="int4")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_gpu_is_a_clear_error(saved):
    with pytest.raises(RuntimeError, match="device='cpu'"):
        load_model(saved[0], quantization="4bit", device="cuda")


def test_missing_folder_names_the_fix(tmp_path):
    with pytest.raises(OSError, match="save_pretrained"):
        load_model(tmp_path / "nope")


def test_4bit_with_compile_on_cpu_is_refused(saved):
    with pytest.raises(ValueError, match="compile=False"):
        load_model(saved[0], quantization="4bit", compile=True, device="cpu")


def test_none_loads_fp32_equal_to_saved(saved):
    model = load_model(saved[0], device="cpu")
    assert not model.training and model.dtype == torch.float32
    torch.testing.assert_close(_logits(model), _logits(saved[1]))


def test_int8_replaces_every_linear_and_stays_close(saved):
    model = load_model(saved[0], quantization="int8", device="cpu")
    linears = [m for m in model.modules() if isinstance(m, (nn.Linear, Int8WeightOnlyLinear))]
    assert linears and all(isinstance(m, Int8WeightOnlyLinear) for m in linears)
    ref, got = _logits(saved[1]), _logits(model)
    assert (got - ref).abs().max() <= 0.02 * ref.abs().max()
    assert (got.argmax(-1) == ref.argmax(-1)).float().mean() >= 0.8


def test_int8_weight_memory_is_under_045_of_fp32(saved):
    model = load_model(saved[0], quantization="int8", device="cpu")
    assert weight_bytes(model) <= 0.45 * weight_bytes(saved[1])


def test_int8_keeps_value_head_and_wkv_params_fp32():
    model = TinyRWKVForCausalLMWithValueHead(tiny_config(vocab_size=128))
    replaced = quantize_int8_(model, skip=model._keep_in_fp32_modules)
    assert type(model.v_head) is nn.Linear and "v_head" not in replaced
    assert model.model.blocks[0].att.time_decay.dtype == torch.float32


def test_int8_generate_matches_its_own_forward(saved):
    model = load_model(saved[0], quantization="int8", device="cpu")
    out = model.generate(PROMPT, max_new_tokens=6, do_sample=False, pad_token_id=1, eos_token_id=None)
    step = _logits(model)[0, -1].argmax()
    assert out.shape == (1, PROMPT.shape[1] + 6) and out[0, PROMPT.shape[1]] == step


@pytest.fixture(scope="module")
def saved_64(tmp_path_factory):
    """Like `saved`, but every Linear takes a multiple of 64 inputs, as bitsandbytes' CPU 4-bit needs."""
    folder = tmp_path_factory.mktemp("tiny64")
    torch.manual_seed(0)
    model = TinyRWKVForCausalLM(tiny_config(vocab_size=128, d_embed=64, d_hidden=64))
    model = randomise_zero_init(model, std=0.2).eval()
    model.save_pretrained(folder)
    return folder, model


def test_bnb_4bit_on_cpu_generates(saved_64):
    pytest.importorskip("bitsandbytes")
    model = load_model(saved_64[0], quantization="4bit", device="cpu")
    assert any(type(m).__name__ == "Linear4bit" for m in model.modules())
    assert model.model.blocks[0].att.time_decay.dtype == torch.float32
    ref, got = _logits(saved_64[1]), _logits(model)
    # NF4 on 64-wide layers is coarse: ask for the same logits direction, not closeness
    assert torch.nn.functional.cosine_similarity(got.flatten(), ref.flatten(), dim=0) >= 0.8
    assert model.generate(PROMPT, max_new_tokens=4, do_sample=False, pad_token_id=1).shape[1] == PROMPT.shape[1] + 4


def test_bnb_4bit_on_cpu_refuses_widths_it_cannot_pack(saved):
    pytest.importorskip("bitsandbytes")
    with pytest.raises(ValueError, match=r"blocks of 64 input features.*model\.emb_proj \(16\).*quantization='int8'"):
        load_model(saved[0], quantization="4bit", device="cpu")


def test_compile_flag_compiles_the_forward(saved):
    model = load_model(saved[0], quantization="int8", compile="aot_eager", device="cpu")
    assert hasattr(model.forward, "_torchdynamo_orig_callable") or "compile" in type(model.forward).__name__.lower()
    torch.testing.assert_close(_logits(model), _logits(load_model(saved[0], quantization="int8", device="cpu")))


def test_stream_reply_yields_growing_valid_action(tiny_tokenizer):
    from rusty_hf.protocol import parse_action

    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))).eval()
    texts = list(stream_reply(model, tiny_tokenizer, [{"role": "user", "content": "ls"}], max_new_tokens=24))
    assert len(texts) > 1 and all(b.startswith(a) for a, b in itertools.pairwise(texts))
    assert parse_action(texts[-1]).action in ("MSG", "CMD", "EDIT")
