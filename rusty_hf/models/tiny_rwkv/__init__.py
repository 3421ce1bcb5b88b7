"""TinyRWKV, the RWKV-4 model behind Rusty, as a transformers model.

Importing this package registers the classes with the Auto API in this process and marks them
for `save_pretrained` to write `auto_map` plus the code, so a saved folder loads anywhere with
`AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)`.
"""

from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

from .configuration_tiny_rwkv import TinyRWKVConfig
from .modeling_tiny_rwkv import (
    TinyRWKVCausalLMOutput,
    TinyRWKVCausalLMOutputWithValue,
    TinyRWKVForCausalLM,
    TinyRWKVForCausalLMWithValueHead,
    TinyRWKVLM,
    TinyRWKVModel,
    TinyRWKVModelOutput,
    TinyRWKVPreTrainedModel,
)
from .wkv import wkv, wkv_reference


def register_auto_classes() -> None:
    """Register with AutoConfig/AutoModel/AutoModelForCausalLM (idempotent) and for remote code."""
    AutoConfig.register(TinyRWKVConfig.model_type, TinyRWKVConfig, exist_ok=True)
    AutoModel.register(TinyRWKVConfig, TinyRWKVModel, exist_ok=True)
    AutoModelForCausalLM.register(TinyRWKVConfig, TinyRWKVForCausalLM, exist_ok=True)
    TinyRWKVConfig.register_for_auto_class()
    TinyRWKVModel.register_for_auto_class("AutoModel")
    TinyRWKVForCausalLM.register_for_auto_class("AutoModelForCausalLM")


register_auto_classes()

__all__ = [
    "TinyRWKVCausalLMOutput",
    "TinyRWKVCausalLMOutputWithValue",
    "TinyRWKVConfig",
    "TinyRWKVForCausalLM",
    "TinyRWKVForCausalLMWithValueHead",
    "TinyRWKVLM",
    "TinyRWKVModel",
    "TinyRWKVModelOutput",
    "TinyRWKVPreTrainedModel",
    "register_auto_classes",
    "wkv",
    "wkv_reference",
]
