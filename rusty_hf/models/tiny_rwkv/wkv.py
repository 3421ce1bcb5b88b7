"""The RWKV-4 WKV operator: a reference recurrence, and three backends behind one dispatcher.

For each channel, with decay ``w = -exp(time_decay) < 0`` and bonus ``u = time_first``::

    wkv_t = (sum_{i<t} e^{(t-1-i) w + k_i} v_i + e^{u + k_t} v_t)
          / (sum_{i<t} e^{(t-1-i) w + k_i}     + e^{u + k_t})

It is computed with the numerically stable recurrence over a state ``(a, b, p)``: the real
numerator and denominator sums are ``a * e^p`` and ``b * e^p``, with ``p`` a running maximum of
the exponents, so nothing overflows however large the keys get.

- `wkv_reference` loops over time with plain autograd: slow, obviously right; used by tests.
- `wkv` is what the model calls. It picks a backend per call, `RUSTY_WKV_BACKEND`:
  ``auto`` (default): ``triton`` for CUDA tensors when triton imports, ``cpp`` for CPU tensors when
  the C++ kernel builds (``RUSTY_CPU_KERNELS=off`` turns it off), else ``torch``;
  ``triton``: `wkv_triton` (GPU; CPU tensors only under ``TRITON_INTERPRET=1``);
  ``cpp``: `cpu_kernels.WKVCpuFunction`'s kernel (CPU tensors); ``torch``: `wkv_torch`, any device.
- Every backend runs inside one torch custom op (registered fake and autograd), so torch.compile
  traces through WKV without a graph break on any device; a training step of the whole model
  compiles with `fullgraph=True` (tests/test_modeling_tiny_rwkv.py). The backend is chosen when a
  graph is traced: changing the variable later needs a recompile (`torch._dynamo.reset()`).

Masking: positions where ``mask`` is 0 leave the state untouched and output 0, so left padding
never leaks into the recurrence. Gradients do not flow into an incoming state (training runs
whole sequences; the state is for generation).

The state and outputs are float32 (the exponent bookkeeping needs its range); the Triton path
reads k and v in their own dtype, the others in float32.
"""

from __future__ import annotations

import os
import re
from typing import Callable, NamedTuple

import torch

from .cpu_kernels import load_kernel, wkv_cpu_backward, wkv_cpu_forward
from .wkv_torch import MIN_EXPONENT, WKVFunction, wkv_torch_backward, wkv_torch_forward

WKVState = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # (a, b, p), each (B, C) float32

BACKENDS = ("auto", "triton", "cpp", "torch")


def empty_wkv_state(batch_size: int, channels: int, device=None) -> WKVState:
    """The state before any token: no numerator, no denominator."""
    a = torch.zeros(batch_size, channels, device=device, dtype=torch.float32)
    b = torch.zeros_like(a)
    p = torch.full_like(a, MIN_EXPONENT)
    return a, b, p


def wkv_reference(
    w: torch.Tensor,
    u: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    state: WKVState | None = None,
    mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, WKVState]:
    """Token-by-token WKV with autograd through the loop.

    Args:
        w: (C,) decay, negative. u: (C,) bonus. k, v: (B, T, C). state: (a, b, p) or None.
        mask: (B, T) with 1 for real tokens, or None.

    Returns:
        (y, state): y is (B, T, C); state is the (a, b, p) after the last real token.
    """
    B, T, C = k.shape
    a, b, p = state if state is not None else empty_wkv_state(B, C, k.device)
    ys = []
    for t in range(T):
        kt, vt = k[:, t], v[:, t]
        q = torch.maximum(p, u + kt)
        e1, e2 = torch.exp(p - q), torch.exp(u + kt - q)
        y = (e1 * a + e2 * vt) / (e1 * b + e2)
        q2 = torch.maximum(p + w, kt)
        e1, e2 = torch.exp(p + w - q2), torch.exp(kt - q2)
        a_new, b_new, p_new = e1 * a + e2 * vt, e1 * b + e2, q2
        if mask is not None:
            m = mask[:, t, None].bool()
            y = torch.where(m, y, torch.zeros_like(y))
            a_new, b_new, p_new = (torch.where(m, n, o) for n, o in ((a_new, a), (b_new, b), (p_new, p)))
        a, b, p = a_new, b_new, p_new
        ys.append(y)
    return torch.stack(ys, dim=1), (a, b, p)


# --- backends ----------------------------------------------------------------------------------------


class TritonKernels(NamedTuple):
    forward: Callable[..., tuple[torch.Tensor, ...]]  # wkv_triton.wkv_triton_forward
    backward: Callable[..., tuple[torch.Tensor, ...]]  # wkv_triton.wkv_triton_backward
    interpreted: bool  # imported under TRITON_INTERPRET=1: runs on CPU tensors


_triton: TritonKernels | None = None
_triton_error: str | None = None


def triton_kernels() -> TritonKernels | None:
    """`wkv_triton`'s kernels, imported on first need; None when triton does not import.

    Lazily, because importing triton costs time CPU-only runs never need, and because Triton reads
    TRITON_INTERPRET when it defines the kernels: it may be set any time before the first use.
    """
    global _triton, _triton_error
    if _triton is None and _triton_error is None:
        try:  # optional dependency; transformers' remote-code check ignores imports in a try
            from .wkv_triton import INTERPRETED, wkv_triton_backward, wkv_triton_forward
        except Exception as err:  # missing, or a broken install: auto falls back, forcing says why
            _triton_error = f"{type(err).__name__}: {err}"
        else:
            _triton = TritonKernels(wkv_triton_forward, wkv_triton_backward, INTERPRETED)
    return _triton


@torch.compiler.assume_constant_result  # read at trace time, so the choice is no graph break
def wkv_backend(device_type: str) -> str:
    """The backend `wkv` uses for tensors on `device_type`, from RUSTY_WKV_BACKEND (see module doc).

    Raises RuntimeError when the forced backend cannot run those tensors, naming the fix.
    """
    choice = os.environ.get("RUSTY_WKV_BACKEND", "auto").strip().lower() or "auto"
    if choice not in BACKENDS:
        raise ValueError(f"RUSTY_WKV_BACKEND={choice!r}: expected one of {', '.join(BACKENDS)}")
    if choice == "auto":
        if device_type == "cuda" and triton_kernels() is not None:
            return "triton"
        return "cpp" if device_type == "cpu" and load_kernel() is not None else "torch"
    if choice == "triton":
        kernels = triton_kernels()
        if kernels is None:
            raise RuntimeError(f"RUSTY_WKV_BACKEND=triton, but triton does not import ({_triton_error}): "
                               "`pip install triton`, or use RUSTY_WKV_BACKEND=auto")
        if device_type != "cuda" and not kernels.interpreted:
            raise RuntimeError(f"RUSTY_WKV_BACKEND=triton needs CUDA tensors, got {device_type} ones: set "
                               "TRITON_INTERPRET=1 before the first Triton WKV call to run Triton's CPU "
                               "interpreter (slow, for tests), or use RUSTY_WKV_BACKEND=auto")
    if choice == "cpp":
        if device_type != "cpu":
            raise RuntimeError(f"RUSTY_WKV_BACKEND=cpp runs on CPU tensors only, got {device_type} ones: "
                               "use RUSTY_WKV_BACKEND=auto (triton on CUDA) or torch")
        if load_kernel() is None:
            raise RuntimeError("RUSTY_WKV_BACKEND=cpp, but the C++ kernel is unavailable (RUSTY_CPU_KERNELS=off, "
                               "no C++ compiler, or a failed build: see the log): use RUSTY_WKV_BACKEND=auto")
    return choice


# --- the custom op ------------------------------------------------------------------------------------


def _forward_impl(w, u, k, v, a0, b0, p0, mask, backend, save_states):
    if backend == "cpp":  # its backward recomputes the states from (a0, b0, p0)
        return (*wkv_cpu_forward(w, u, k, v, a0, b0, p0, mask), *(k.new_empty(0) for _ in range(3)))
    forward = wkv_torch_forward if backend == "torch" else triton_kernels().forward
    return forward(w, u, k, v, a0, b0, p0, mask, save_states)


def _forward_fake(w, u, k, v, a0, b0, p0, mask, backend, save_states):
    B, T, C = k.shape
    saved = (B, T, C) if save_states and backend != "cpp" else (0,)
    return (k.new_empty((B, T, C), dtype=torch.float32), *(a0.new_empty((B, C)) for _ in range(3)),
            *(k.new_empty(saved, dtype=torch.float32) for _ in range(3)))


def _backward_impl(w, u, k, v, a0, b0, p0, mask, sa, sb, sp, gy, backend):
    if backend == "cpp":
        return wkv_cpu_backward(w, u, k, v, a0, b0, p0, mask, gy)
    backward = wkv_torch_backward if backend == "torch" else triton_kernels().backward
    return backward(w, u, k, v, mask, (sa, sb, sp), gy)


def _backward_fake(w, u, k, v, a0, b0, p0, mask, sa, sb, sp, gy, backend):
    C = k.shape[-1]
    return w.new_empty(C), u.new_empty(C), torch.empty_like(k), torch.empty_like(v)


def _setup_context(ctx, inputs, output):
    w, u, k, v, a0, b0, p0, mask, ctx.backend, _ = inputs
    ctx.save_for_backward(w, u, k, v, a0, b0, p0, mask, *output[4:])
    ctx.mark_non_differentiable(*output[1:])


def _backward(ctx, gy, *_other_grads):
    w, u, k, v, *rest = ctx.saved_tensors
    gw, gu, gk, gv = _backward_op(w, u, k, v, *rest, gy.contiguous(), ctx.backend)
    # Exactly the inputs' shapes: aot_autograd rejects a (C,) gradient for a (1, 1, C) input.
    return gw.reshape(w.shape), gu.reshape(u.shape), gk, gv, None, None, None, None, None, None


# Ops are process-global, and this file may be imported twice in one process (as rusty_hf's and as
# remote code copied next to saved weights, whose module path carries a hash of the code): name the
# ops by the module, and define them only if this module's name has none yet (a re-executed module).
_NAMESPACE = re.sub(r"\W", "_", __name__)
_FORWARD_SCHEMA = ("(Tensor w, Tensor u, Tensor k, Tensor v, Tensor a0, Tensor b0, Tensor p0, Tensor? mask, "
                   "str backend, bool save_states) -> (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)")
_BACKWARD_SCHEMA = ("(Tensor w, Tensor u, Tensor k, Tensor v, Tensor a0, Tensor b0, Tensor p0, Tensor? mask, "
                    "Tensor sa, Tensor sb, Tensor sp, Tensor gy, str backend) -> (Tensor, Tensor, Tensor, Tensor)")


if not hasattr(getattr(torch.ops, _NAMESPACE), "wkv_forward"):
    _op = torch.library.custom_op(f"{_NAMESPACE}::wkv_forward", _forward_impl, mutates_args=(),
                                  schema=_FORWARD_SCHEMA)
    _op.register_fake(_forward_fake)
    _op.register_autograd(_backward, setup_context=_setup_context)
    _op = torch.library.custom_op(f"{_NAMESPACE}::wkv_backward", _backward_impl, mutates_args=(),
                                  schema=_BACKWARD_SCHEMA)
    _op.register_fake(_backward_fake)
_forward_op = getattr(torch.ops, _NAMESPACE).wkv_forward.default
_backward_op = getattr(torch.ops, _NAMESPACE).wkv_backward.default


def wkv(
    w: torch.Tensor,
    u: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    state: WKVState | None = None,
    mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, WKVState]:
    """Dispatcher: compute WKV in float32 with the backend `wkv_backend` picks for these tensors.

    Args:
        w: (C,) decay (negative). u: (C,) bonus. k, v: (B, T, C), any float dtype.
        state: (a, b, p), each (B, C) float32, or None for an empty state.
        mask: (B, T), 1 for real tokens and 0 for padding, or None.

    Returns:
        (y, state): y is (B, T, C) float32; state after the last real token of each row.
    """
    B, T, C = k.shape
    backend = wkv_backend(k.device.type)
    if backend != "triton":  # the Triton kernels load any float dtype and compute in float32
        k, v = k.float(), v.float()
    w, u, k, v = w.float(), u.float(), k.contiguous(), v.contiguous()
    a, b, p = state if state is not None else empty_wkv_state(B, C, k.device)
    save_states = torch.is_grad_enabled() and any(x.requires_grad for x in (w, u, k, v))
    y, a, b, p, *_ = _forward_op(w, u, k, v, a, b, p, mask, backend, save_states)
    return y, (a, b, p)


__all__ = [
    "BACKENDS", "MIN_EXPONENT", "TritonKernels", "WKVFunction", "WKVState", "empty_wkv_state", "triton_kernels",
    "wkv", "wkv_backend", "wkv_reference",
]
