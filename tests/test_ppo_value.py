"""The value-head plumbing PPO relies on (rusty_hf/trainers/ppo_value.py)."""

import torch
from peft import LoraConfig, get_peft_model

from rusty_hf import TinyRWKVForCausalLMWithValueHead
from rusty_hf.trainers.ppo_value import add_value_head, read_values, value_head_model


def test_add_value_head_keeps_the_language_model_and_adds_a_float32_head(tiny_model):
    tiny_model.config._name_or_path = "outputs/tiny-sft"
    with_head = add_value_head(tiny_model).eval()
    ids = torch.tensor([[5, 6, 7, 8]])
    torch.testing.assert_close(with_head(ids).logits, tiny_model(ids).logits)
    assert with_head.v_head.weight.dtype == torch.float32
    assert with_head.config._name_or_path == "outputs/tiny-sft"  # TRL rebuilds the reference model from it
    assert add_value_head(with_head) is with_head


def test_read_values_matches_the_models_own_value_output(tiny_model):
    model = add_value_head(tiny_model).eval()
    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 11, 12]])
    hidden = model.base_model(ids).last_hidden_state
    torch.testing.assert_close(read_values(model, hidden), model(ids).value)


def test_value_head_model_looks_through_peft_and_skips_models_without_a_head(tiny_model):
    model = add_value_head(tiny_model)
    lora = get_peft_model(model, LoraConfig(r=2, target_modules=["key"], modules_to_save=["v_head"]))
    assert value_head_model(lora) is model
    assert isinstance(value_head_model(lora), TinyRWKVForCausalLMWithValueHead)
    assert value_head_model(tiny_model) is None  # a reference model: no head
