"""Packed copies of the weights for few-row CPU inference, valid for one decoding session only.

A decoding step on CPU multiplies a few rows by every weight; the compiled kernels (`cpu_kernels`) run it
fastest on a copy of each weight repacked into column panels, and the fused decoding step needs those
copies for every block. Making them costs about one decoding step, so they are made once per session and
reused by every step of it.

Why only inside a session: a copy is right only while the parameter it was made from is unchanged, and
nothing cheap tells when a parameter changed. The version counter misses fused AdamW (the Trainer's
default optimizer updates in place without bumping it), `.data` edits and PEFT's merge; the storage
pointer misses every in-place update. A copy that outlived one of those served the old weights to every
later no-grad forward (GRPO's rollouts were decoded by the SFT weights for a whole run). So copies live
only inside `decoding_session()`, which `TinyRWKVForCausalLM.generate` opens for its whole call, and are
dropped when it ends: within one `generate` nothing changes the weights. Every other forward reads the
parameters themselves.

    from rusty_hf.models.tiny_rwkv import decoding_session
    with torch.no_grad(), decoding_session():   # a hand-written decoding loop: promise not to change the
        out = model(prompt, use_cache=True)     # weights until the block ends
        for _ in range(n):
            out = model(next_token, past_key_values=out.past_key_values, use_cache=True)

Sessions are per thread (a streaming generation in a worker thread has its own), and nest: an inner
session shares the outer one's copies. Inside a session a copy is still rebuilt when its parameter is
replaced or its version counter moves, the cheap checks that remain.

Imports only torch and modules of this folder (remote code).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn

from .cpu_kernels import PACKED_LINEAR_MAX_ROWS, packed_linear, packed_linear_weight

_local = threading.local()


@contextlib.contextmanager
def decoding_session() -> Iterator[None]:
    """Let few-row CPU forwards in this thread use packed weight copies until the block ends.

    The caller promises that no parameter changes inside the block (no optimizer step, no merge, no
    `.data` edit); `generate` holds one for its whole call. The copies are freed when the outermost
    session ends."""
    stack = _local.__dict__.setdefault("sessions", [])
    stack.append(stack[-1] if stack else {})
    try:
        yield
    finally:
        stack.pop()


def session_cache() -> dict | None:
    """The current thread's session store, or None outside `decoding_session`."""
    stack = getattr(_local, "sessions", None)
    return stack[-1] if stack else None


def cached(owner: Any, tag: str, build: Callable[[], Any], valid: Callable[[Any], bool] = lambda value: True) -> Any:
    """`build()` once per session for (`owner`, `tag`) while `valid(value)` holds; None outside a session."""
    store = session_cache()
    if store is None:
        return None
    key = (id(owner), tag)
    entry = store.get(key)
    if entry is None or entry[0] is not owner or not valid(entry[1]):
        entry = (owner, build())  # the owner is held, so its id cannot be reused while the session lasts
        store[key] = entry
    return entry[1]


def _weight_key(weight: torch.Tensor) -> tuple[int, int]:
    return weight.data_ptr(), weight._version


def inference_weights(module: nn.Linear) -> tuple[torch.Tensor | None, torch.Tensor | None] | None:
    """(packed W, None) with the compiled kernels, else (None, W^T); None outside a decoding session."""
    weight = module._parameters["weight"]

    def build():
        with torch.inference_mode(False):
            packed = packed_linear_weight(weight)
            return _weight_key(weight), packed, _transposed_halves(weight.detach()) if packed is None else None

    entry = cached(module, "linear", build, lambda value: value[0] == _weight_key(weight))
    return None if entry is None else entry[1:]


def _transposed_halves(weight: torch.Tensor) -> torch.Tensor:
    """W^T for the fallback path, (halves, in, out / halves).

    A wide output (the head) is split in two column halves: MKL runs a single small-batch matmul
    on one core, a bmm of two on both."""
    halves = 2 if weight.shape[0] >= 8192 and weight.shape[0] % 2 == 0 else 1
    return weight.view(halves, -1, weight.shape[1]).transpose(1, 2).contiguous()


def fast_linear(module: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """`module(x)`, except for few-token inference on CPU with a plain fp32 `nn.Linear` inside a session.

    There, with the compiled kernels, it runs `packed_linear` on the session's packed copy of W: both
    cores stream the weights, where MKL keeps a product of a few rows on one core. Without them it
    multiplies by a contiguous W^T, which MKL's small-batch path runs about 2x faster than `F.linear`'s
    layout. Autocast, quantized, peft or hooked modules (accelerate offloading) always go through their
    own forward, so no-grad and grad forwards compute the same thing.
    """
    if (
        torch.is_grad_enabled()
        or torch.compiler.is_compiling()  # the copies are host-side state a compiler cannot trace
        or type(module) is not nn.Linear
        or x.device.type != "cpu"
        or x.dtype != torch.float32
        or module.weight.dtype != torch.float32
        or torch.is_autocast_enabled("cpu")
        or x.numel() > PACKED_LINEAR_MAX_ROWS * module.in_features
        or module._forward_hooks
        or module._forward_pre_hooks
        or "_hf_hook" in module.__dict__
    ):
        return module(x)
    weights = inference_weights(module)
    if weights is None:
        return module(x)
    packed, w_t = weights
    rows = x.reshape(-1, x.shape[-1])
    if packed is not None:
        out = packed_linear(rows, packed, module.out_features)
    elif w_t.shape[0] == 1:
        out = rows @ w_t[0]
    else:  # (halves, N, out / halves), one bmm: ATen spreads the halves over the cores
        out = torch.bmm(rows.unsqueeze(0).expand(w_t.shape[0], *rows.shape), w_t).transpose(0, 1).reshape(rows.shape[0], -1)
    out = out.view(*x.shape[:-1], -1)
    return out if module.bias is None else out + module.bias


__all__ = ["cached", "decoding_session", "fast_linear", "inference_weights", "session_cache"]
