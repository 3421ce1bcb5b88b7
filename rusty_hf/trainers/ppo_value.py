"""The value head as PPO sees it: find it under wrappers, read values off hidden states, add one.

    model = add_value_head(TinyRWKVForCausalLM.from_pretrained("outputs/tiny-sft"))  # fresh v_head
    policy = value_head_model(accelerator_or_peft_wrapped_model)   # the module that owns v_head
    values = read_values(policy, hidden_states)                     # (B, T) float32

`PPOTrainer` reads values from the backbone pass TRL's fused LM head already runs, so it needs the
head separately from the model's own forward; `read_values` computes exactly what
`TinyRWKVForCausalLMWithValueHead.forward` returns as `value`.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import PreTrainedModel

from rusty_hf.models.tiny_rwkv import TinyRWKVForCausalLM, TinyRWKVForCausalLMWithValueHead


def value_head_model(model: nn.Module) -> nn.Module | None:
    """The model that owns `v_head` under DDP / torch.compile / PEFT wrappers, or None (a reference model).

    Looks at registered submodules only: PeftModel forwards attribute lookups to the wrapped model, so
    `hasattr(peft_model, "v_head")` is true of the wrapper too."""
    for _ in range(8):
        if "v_head" in model._modules:
            return model
        if hasattr(model, "get_base_model"):  # PeftModel
            model = model.get_base_model()
        elif "module" in model._modules or "_orig_mod" in model._modules:  # DDP, torch.compile
            model = model._modules.get("module") or model._modules["_orig_mod"]
        else:
            return None
    return None


def read_values(model: nn.Module, hidden: torch.Tensor) -> torch.Tensor:
    """`v_head(v_dropout(hidden))` as (B, T) float32, as the value-head model's own forward computes it."""
    dropout = getattr(model, "v_dropout", nn.Identity())
    dtype = next(model.v_head.parameters()).dtype
    return model.v_head(dropout(hidden).to(dtype)).squeeze(-1).float()


def add_value_head(model: PreTrainedModel) -> TinyRWKVForCausalLMWithValueHead:
    """The value-head version of a TinyRWKV causal LM: same config and weights, a fresh `v_head`.
    A model that already has a value head is returned as is."""
    if hasattr(model, "v_head"):
        return model
    if not isinstance(model, TinyRWKVForCausalLM):
        raise TypeError(f"add_value_head builds on a TinyRWKVForCausalLM, got {type(model).__name__}")
    with_head = TinyRWKVForCausalLMWithValueHead(model.config)  # shares the config: _name_or_path stays
    missing, unexpected = with_head.load_state_dict(model.state_dict(), strict=False)
    if unexpected or set(missing) - {"v_head.weight", "v_head.bias"}:
        raise RuntimeError(f"weights do not fit the value-head model: missing {missing}, unexpected {unexpected}")
    with_head.generation_config = model.generation_config
    with_head.to(device=model.device, dtype=model.dtype)
    with_head.v_head.float()  # as from_pretrained keeps it (_keep_in_fp32_modules)
    return with_head


__all__ = ["add_value_head", "read_values", "value_head_model"]
