"""TinyRWKVForCausalLMWithValueHead: a PPO critic sharing the policy's trunk."""

import torch
from transformers import AutoModelForCausalLM

from rusty_hf import TinyRWKVForCausalLM, TinyRWKVForCausalLMWithValueHead
from tests.conftest import randomise_zero_init, tiny_config


def test_loads_from_a_plain_causal_lm_initialising_only_the_head(tmp_path):
    torch.manual_seed(0)
    lm = randomise_zero_init(TinyRWKVForCausalLM(tiny_config()))
    lm.save_pretrained(tmp_path)
    model = TinyRWKVForCausalLMWithValueHead.from_pretrained(tmp_path)
    lm_state = lm.state_dict()
    for name, tensor in model.state_dict().items():
        if name.startswith("v_head"):
            assert name not in lm_state
        else:
            assert torch.equal(tensor, lm_state[name]), name
    assert model.v_head.weight.abs().sum() > 0  # initialised, not left empty


def test_forward_gives_logits_and_one_value_per_token():
    model = TinyRWKVForCausalLMWithValueHead(tiny_config())
    out = model(torch.randint(2, 99, (3, 7)))
    assert out.logits.shape == (3, 7, 99) and out.value.shape == (3, 7)
    out.value.sum().backward()
    assert model.v_head.weight.grad is not None and model.model.emb_proj.weight.grad is not None


def test_head_survives_save_and_reload(tmp_path):
    model = TinyRWKVForCausalLMWithValueHead(tiny_config())
    with torch.no_grad():
        model.v_head.weight.fill_(0.25)
        model.v_head.bias.fill_(-1.5)
    model.save_pretrained(tmp_path)
    again = TinyRWKVForCausalLMWithValueHead.from_pretrained(tmp_path)
    assert torch.equal(again.v_head.weight, model.v_head.weight) and again.v_head.bias.item() == -1.5
    ids = torch.randint(2, 99, (1, 5))
    torch.testing.assert_close(again(ids).value, model(ids).value)


def test_value_head_checkpoint_still_loads_as_a_plain_causal_lm(tmp_path):
    model = TinyRWKVForCausalLMWithValueHead(tiny_config())
    model.save_pretrained(tmp_path)
    plain = AutoModelForCausalLM.from_pretrained(tmp_path)
    assert type(plain) is TinyRWKVForCausalLM
    ids = torch.randint(2, 99, (1, 5))
    torch.testing.assert_close(plain(ids).logits, model(ids).logits)


def test_value_head_is_kept_out_of_quantization_and_low_precision():
    assert "v_head" in TinyRWKVForCausalLMWithValueHead._keep_in_fp32_modules
    assert "v_head" in TinyRWKVForCausalLMWithValueHead._keep_in_fp32_modules_strict
