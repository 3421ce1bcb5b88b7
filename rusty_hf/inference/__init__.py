"""rusty_hf.inference: load Rusty for serving (quantized, optionally compiled) and measure it.

    from rusty_hf.inference import load_model, stream_reply
    model = load_model("outputs/tiny-sft", quantization="int8")     # CPU int8 weight-only
    for text in stream_reply(model, tokenizer, [{"role": "user", "content": "list files"}]):
        print(text)                                                  # the reply so far

`rusty-bench` (benchmarks/inference.py) prints peak memory and tokens/s for every mode. The names
below load on first use (PEP 562), so `rusty-bench --help` does not import torch.
"""

from importlib import import_module

_EXPORTS = {
    "Int8WeightOnlyLinear": "rusty_hf.inference.int8",
    "quantize_int8_": "rusty_hf.inference.int8",
    "weight_bytes": "rusty_hf.inference.int8",
    "QUANTIZATIONS": "rusty_hf.inference.loading",
    "check_combination": "rusty_hf.inference.loading",
    "load_model": "rusty_hf.inference.loading",
    "load_tokenizer_for": "rusty_hf.inference.loading",
    "resolve_device": "rusty_hf.inference.loading",
    "stream_reply": "rusty_hf.inference.streaming",
}


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'rusty_hf.inference' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = sorted(_EXPORTS)
