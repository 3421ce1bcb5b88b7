"""Model architectures of rusty_hf. Each subfolder is self-contained (it can be Hub remote code)."""

from .tiny_rwkv import (
    TinyRWKVConfig,
    TinyRWKVForCausalLM,
    TinyRWKVForCausalLMWithValueHead,
    TinyRWKVForSequenceClassification,
    TinyRWKVForTokenClassification,
    TinyRWKVLM,
    TinyRWKVModel,
)

__all__ = [
    "TinyRWKVConfig",
    "TinyRWKVForCausalLM",
    "TinyRWKVForCausalLMWithValueHead",
    "TinyRWKVForSequenceClassification",
    "TinyRWKVForTokenClassification",
    "TinyRWKVLM",
    "TinyRWKVModel",
]
