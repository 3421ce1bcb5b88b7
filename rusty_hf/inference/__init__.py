"""rusty_hf.inference: load Rusty for serving (quantized, optionally compiled) and measure it.

    from rusty_hf.inference import load_model, stream_reply
    model = load_model("outputs/tiny-sft", quantization="int8")     # CPU int8 weight-only
    for text in stream_reply(model, tokenizer, [{"role": "user", "content": "list files"}]):
        print(text)                                                  # the reply so far

`rusty-bench` (benchmarks/inference.py) prints peak memory and tokens/s for every mode.
"""

from rusty_hf.inference.int8 import Int8WeightOnlyLinear, quantize_int8_, weight_bytes
from rusty_hf.inference.loading import QUANTIZATIONS, check_combination, load_model, resolve_device
from rusty_hf.inference.streaming import stream_reply

__all__ = [
    "QUANTIZATIONS",
    "Int8WeightOnlyLinear",
    "check_combination",
    "load_model",
    "quantize_int8_",
    "resolve_device",
    "stream_reply",
    "weight_bytes",
]
