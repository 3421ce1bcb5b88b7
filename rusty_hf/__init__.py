"""rusty_hf: train and serve Rusty, a tiny RWKV-4 agentic coding model, the Hugging Face way.

`import rusty_hf` registers TinyRWKV with transformers' Auto classes, so

    >>> import rusty_hf
    >>> from transformers import AutoConfig
    >>> AutoConfig.for_model("tiny_rwkv").d_hidden
    512

works in-process; saved checkpoints also load without rusty_hf through remote code.
"""

from .models import (
    TinyRWKVConfig,
    TinyRWKVForCausalLM,
    TinyRWKVForCausalLMWithValueHead,
    TinyRWKVLM,
    TinyRWKVModel,
)

__version__ = "0.1.0"

__all__ = [
    "TinyRWKVConfig",
    "TinyRWKVForCausalLM",
    "TinyRWKVForCausalLMWithValueHead",
    "TinyRWKVLM",
    "TinyRWKVModel",
    "__version__",
]
