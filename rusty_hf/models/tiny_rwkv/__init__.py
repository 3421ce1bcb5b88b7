"""TinyRWKV, the RWKV-4 model behind Rusty, as a transformers model.

Importing this package registers the classes with the Auto API in this process and marks them
for `save_pretrained` to write `auto_map` plus the code, so a saved folder loads anywhere with
`AutoModelForCausalLM.from_pretrained(path, trust_remote_code=True)`.
"""

from transformers import (
    AutoConfig,
    AutoModel,
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    AutoModelForTokenClassification,
)

from .cache_tiny_rwkv import TinyRWKVCache
from .configuration_tiny_rwkv import TinyRWKVConfig
from .inference_cache import decoding_session
from .modeling_tiny_rwkv import (
    TinyRWKVCausalLMOutput,
    TinyRWKVForCausalLM,
    TinyRWKVLM,
    TinyRWKVModel,
    TinyRWKVModelOutput,
    TinyRWKVPreTrainedModel,
)
from .modeling_tiny_rwkv_heads import (
    TinyRWKVCausalLMOutputWithValue,
    TinyRWKVForCausalLMWithValueHead,
    TinyRWKVForSequenceClassification,
    TinyRWKVForTokenClassification,
)
from .wkv import wkv, wkv_reference


def register_auto_classes() -> None:
    """Register with the Auto classes (idempotent) and for remote code."""
    AutoConfig.register(TinyRWKVConfig.model_type, TinyRWKVConfig, exist_ok=True)
    TinyRWKVConfig.register_for_auto_class()
    for auto, cls in ((AutoModel, TinyRWKVModel), (AutoModelForCausalLM, TinyRWKVForCausalLM),
                      (AutoModelForSequenceClassification, TinyRWKVForSequenceClassification),
                      (AutoModelForTokenClassification, TinyRWKVForTokenClassification)):  # fmt: skip
        auto.register(TinyRWKVConfig, cls, exist_ok=True)
        cls.register_for_auto_class(auto.__name__)


register_auto_classes()

__all__ = [
    "TinyRWKVCache",
    "TinyRWKVCausalLMOutput",
    "TinyRWKVCausalLMOutputWithValue",
    "TinyRWKVConfig",
    "TinyRWKVForCausalLM",
    "TinyRWKVForCausalLMWithValueHead",
    "TinyRWKVForSequenceClassification",
    "TinyRWKVForTokenClassification",
    "TinyRWKVLM",
    "TinyRWKVModel",
    "TinyRWKVModelOutput",
    "TinyRWKVPreTrainedModel",
    "decoding_session",
    "register_auto_classes",
    "wkv",
    "wkv_reference",
]
