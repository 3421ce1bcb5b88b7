"""rusty_hf: train and serve Rusty, a tiny RWKV-4 agentic coding model, the Hugging Face way.

`import rusty_hf` is light: it loads neither torch nor transformers, so the console scripts answer
`--help` at once. The model classes load on first use, and loading them (or `import rusty_hf.models`)
registers TinyRWKV with transformers' Auto classes in this process:

    >>> from rusty_hf import TinyRWKVConfig
    >>> from transformers import AutoConfig
    >>> AutoConfig.for_model("tiny_rwkv").d_hidden
    512

Saved checkpoints also load without rusty_hf, through remote code (`trust_remote_code=True`).
"""

__version__ = "0.1.0"

_MODEL_CLASSES = (
    "TinyRWKVConfig",
    "TinyRWKVForCausalLM",
    "TinyRWKVForCausalLMWithValueHead",
    "TinyRWKVForSequenceClassification",
    "TinyRWKVForTokenClassification",
    "TinyRWKVLM",
    "TinyRWKVModel",
)


def __getattr__(name: str):
    # PEP 562: the model classes import torch and transformers, so they load when first asked for.
    if name in _MODEL_CLASSES:
        from rusty_hf import models

        return getattr(models, name)
    raise AttributeError(f"module 'rusty_hf' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODEL_CLASSES])


__all__ = [*_MODEL_CLASSES, "__version__"]
