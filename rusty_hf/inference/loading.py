"""Load a TinyRWKV checkpoint for inference: full precision, int8 or 4-bit, optionally compiled.

    from rusty_hf.inference import load_model
    model = load_model("outputs/tiny-sft")                                   # fp32 on CPU, bf16 on CUDA
    model = load_model("outputs/tiny-sft", quantization="int8")              # CPU: int8 weight-only
    model = load_model("user/rusty-r2", quantization="4bit", device="cuda")  # bitsandbytes NF4

| quantization | CUDA                                   | CPU                                          |
|--------------|----------------------------------------|----------------------------------------------|
| "none"       | bf16 (fp16 where bf16 is unsupported)  | fp32                                         |
| "int8"       | bitsandbytes LLM.int8 (8-bit), fp16    | rusty_hf Int8WeightOnlyLinear (int8.py)      |
| "4bit"       | bitsandbytes NF4, bf16 compute         | bitsandbytes NF4 (its CPU backend), fp32 compute |

LLM.int8 quantizes its activations from fp16, so the CUDA int8 path computes in fp16 (bf16 would
be cast on every matmul, with a warning each time). bitsandbytes' CPU 4-bit kernels (0.50 and
newer) repack weights in blocks of 64 input features, so every Linear it quantizes must have
`in_features % 64 == 0` (TinyRWKV's real widths do; a toy model may not: that is refused up front).

bitsandbytes goes through transformers' `BitsAndBytesConfig`, so it keeps transformers' own rules:
the LM head and `_keep_in_fp32_modules` (time_decay, time_first, v_head) stay unquantized. The CPU
int8 path quantizes the head too: it holds 12.3M of the R2 model's 32M parameters.
Combinations that cannot work here raise one error naming the fix, before anything is loaded; so do a
missing folder, a truncated or corrupt checkpoint and an unreachable Hub (`rusty_hf.hub.checkpoints`), and
`load_tokenizer_for` refuses a tokenizer that does not fit the model. All of them are
`rusty_hf.errors.UserError`s, which the entry points print as one line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil

import torch
from safetensors import SafetensorError
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig, PreTrainedModel
from transformers import PreTrainedTokenizerBase

import rusty_hf.models  # noqa: F401  (registers TinyRWKV with the Auto classes)
from rusty_hf.hub.checkpoints import check_model_source
from rusty_hf.inference.int8 import quantize_int8_
from rusty_hf.errors import CheckpointError, SetupError, UserError

QUANTIZATIONS = ("none", "int8", "4bit")


def resolve_device(device: str | torch.device | None) -> torch.device:
    """`None` means CUDA when available, else CPU. A CUDA request without CUDA is an error."""
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise SetupError(
            f"device={str(device)!r} but torch sees no CUDA GPU (torch {torch.__version__}). "
            "Fix: pass device='cpu', or install a CUDA build of torch on a machine with a GPU."
        )
    if device.type not in ("cpu", "cuda"):
        raise UserError(f"device {str(device)!r} is not supported; use 'cpu' or 'cuda'.")
    return device


def check_combination(quantization: str, device: torch.device, compile: bool | str) -> None:
    """Raise before loading when `quantization` / `device` / `compile` cannot work on this machine."""
    if quantization not in QUANTIZATIONS:
        raise UserError(f"unknown quantization {quantization!r}; choose one of {', '.join(QUANTIZATIONS)}.")
    needs_bnb = quantization == "4bit" or (quantization == "int8" and device.type == "cuda")
    if needs_bnb and importlib.util.find_spec("bitsandbytes") is None:
        raise SetupError(
            f"quantization={quantization!r} on {device.type} uses bitsandbytes, which is not installed. "
            "Fix: pip install 'bitsandbytes>=0.45' (or choose quantization='none')."
        )
    if compile and _compile_backend(compile) == "inductor" and device.type == "cpu" and not _has_cxx():
        raise SetupError(
            "compile=True on CPU needs a C++ compiler for torch.compile's inductor backend, and none was found. "
            "Fix: apt-get install g++ (or set CXX), pass compile='aot_eager', or compile=False."
        )
    if compile and quantization == "4bit" and device.type == "cpu":
        raise UserError(
            "compile with bitsandbytes 4-bit on CPU is not supported (its CPU kernels are not traceable by "
            "torch.compile). Fix: use quantization='int8' with compile, or compile=False with '4bit'."
        )


def _compile_backend(compile: bool | str) -> str:
    return "inductor" if compile is True else str(compile)


def _has_cxx() -> bool:
    return any(shutil.which(c) for c in (os.environ.get("CXX", ""), "g++", "c++", "clang++") if c)


# bitsandbytes' NF4 block: its CPU kernels reshape each weight's scales to (out, in // 64).
BNB_4BIT_BLOCK = 64


def check_cpu_4bit_widths(path: str, **kwargs) -> None:
    """Refuse CPU 4-bit when a Linear bitsandbytes would quantize has a width its CPU kernels cannot pack.

    Builds the model on the meta device (no weights are read) and lists the quantizable Linears, i.e.
    all but the output embedding and `_keep_in_fp32_modules`, whose `in_features` is not a multiple of
    64. Without this check bitsandbytes >= 0.50 fails at the first forward with a reshape error.
    """
    config = AutoConfig.from_pretrained(path, **kwargs)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, trust_remote_code=kwargs.get("trust_remote_code", False))
    kept = set(getattr(model, "_keep_in_fp32_modules", None) or ())
    head = model.get_output_embeddings()
    bad = [
        f"{name} ({module.in_features})"
        for name, module in model.named_modules()
        if isinstance(module, torch.nn.Linear) and module is not head
        and not kept.intersection(name.split(".")) and module.in_features % BNB_4BIT_BLOCK
    ]
    if bad:
        raise UserError(
            f"quantization='4bit' on CPU: bitsandbytes' CPU kernels pack 4-bit weights in blocks of "
            f"{BNB_4BIT_BLOCK} input features, and these layers have other widths: {', '.join(bad[:4])}"
            f"{f' and {len(bad) - 4} more' if len(bad) > 4 else ''}. Fix: use quantization='int8' on CPU, or a model whose "
            f"widths are multiples of {BNB_4BIT_BLOCK}."
        )


def _bnb_config(quantization: str, device: torch.device) -> BitsAndBytesConfig:
    if quantization == "int8":
        return BitsAndBytesConfig(load_in_8bit=True)
    compute = torch.bfloat16 if device.type == "cuda" else torch.float32
    return BitsAndBytesConfig(
        load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=compute, bnb_4bit_use_double_quant=True
    )


def _bnb_compute_dtype(quantization: str, device: torch.device) -> torch.dtype:
    if quantization == "int8":
        return torch.float16  # LLM.int8 quantizes fp16 activations; any other dtype is cast per call
    return _default_dtype(device) if device.type == "cuda" else torch.float32


def _default_dtype(device: torch.device) -> torch.dtype:
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.float32


def load_model(
    path_or_hub_id: str | os.PathLike,
    quantization: str = "none",
    compile: bool | str = False,
    device: str | torch.device | None = None,
    dtype: torch.dtype | None = None,
    trust_remote_code: bool = False,
    revision: str | None = None,
) -> PreTrainedModel:
    """Load a causal LM for inference (eval mode) from a folder or a Hub id.

    Args:
        path_or_hub_id: a folder written by `save_pretrained`, or a Hub id ("user/name").
        quantization: "none", "int8" or "4bit" (see the module docstring for what each means where).
        compile: True compiles the forward with torch.compile (inductor); a string picks the backend
            ("aot_eager" traces without generating code). The first calls of each shape are slow.
        device: "cpu" or "cuda"; None picks CUDA when there is one.
        dtype: compute dtype; None = bf16 (fp16 where unsupported, and for LLM.int8) on CUDA, fp32 on CPU.
        trust_remote_code: needed for a Hub checkpoint when rusty_hf did not register TinyRWKV.
        revision: Hub revision (branch, tag or commit).
    """
    device = resolve_device(device)
    check_combination(quantization, device, compile)
    path = check_model_source(path_or_hub_id, revision=revision)
    kwargs = {"trust_remote_code": trust_remote_code, "revision": revision}
    try:
        if quantization == "4bit" and device.type == "cpu":
            check_cpu_4bit_widths(path, **kwargs)
        if quantization == "4bit" or (quantization == "int8" and device.type == "cuda"):
            compute = dtype or _bnb_compute_dtype(quantization, device)
            model = AutoModelForCausalLM.from_pretrained(
                path, quantization_config=_bnb_config(quantization, device), device_map={"": str(device)},
                dtype=compute, **kwargs,
            )
        else:
            model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype or _default_dtype(device), **kwargs)
            if quantization == "int8":
                quantize_int8_(model.float(), skip=getattr(model, "_keep_in_fp32_modules", None) or ())
            model.to(device)
    except UNREADABLE_CHECKPOINT as err:
        raise CheckpointError(
            f"could not load a model from {path!r}: {_first_line(err)}\nFix: pass a folder written by save_pretrained "
            "(re-save or copy again a corrupt one) or a Hub id (with network access, or already in the Hub cache)."
        ) from err
    model.eval()
    model.requires_grad_(False)
    if compile:
        # Compile the forward only: generate() stays eager Python and calls the compiled forward
        # once per step; dynamic=True avoids one recompile per prompt length.
        model.forward = torch.compile(model.forward, backend=_compile_backend(compile), dynamic=True)
    return model


# What reading a damaged or foreign checkpoint raises (transformers lets these through as they are).
UNREADABLE_CHECKPOINT = (OSError, SafetensorError, json.JSONDecodeError, UnicodeDecodeError)


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]


def load_tokenizer_for(
    model: PreTrainedModel, path_or_hub_id: str | os.PathLike, trust_remote_code: bool = False
) -> PreTrainedTokenizerBase:
    """The tokenizer saved with a checkpoint, checked to be Rusty's and to fit ``model``'s vocabulary."""
    from rusty_hf.tokenizer import check_tokenizer

    name = os.fspath(path_or_hub_id)
    try:
        tokenizer = AutoTokenizer.from_pretrained(name, trust_remote_code=trust_remote_code)
    except UNREADABLE_CHECKPOINT + (ValueError,) as err:
        raise CheckpointError(f"could not load the tokenizer of {name!r}: {_first_line(err)}\nFix: save the tokenizer "
                              "into the model folder (tokenizer.save_pretrained), or copy the folder again.") from err
    try:
        check_tokenizer(tokenizer, vocab_size=model.config.vocab_size)
    except ValueError as err:
        raise CheckpointError(f"the tokenizer in {name!r} does not fit its model: {err}") from None
    return tokenizer


__all__ = ["QUANTIZATIONS", "check_combination", "check_cpu_4bit_widths", "load_model", "load_tokenizer_for", "resolve_device"]
