"""Triton kernels for the WKV operator: the GPU counterpart of `cpu_kernels.WKVCpuFunction`.

Usage: `wkv.wkv` picks this path by itself for CUDA tensors when triton imports (or set
`RUSTY_WKV_BACKEND=triton`). Directly::

    y, a, b, p = WKVTritonFunction.apply(w, u, k, v, a0, b0, p0, mask)  # same as wkv.WKVFunction

`wkv_triton_forward` / `wkv_triton_backward` are the same kernels without autograd, in the
signatures `wkv` registers as a torch custom op. With `TRITON_INTERPRET=1` in the environment when
this module is first imported, the kernels run on CPU tensors in Triton's interpreter (slow; that
is how the tests check them on machines without a GPU).

Shape of the kernels, as in RWKV-LM's wkv_cuda.cu: one program per (batch row, block of channels),
one thread per channel, a sequential loop over time with the state (a, b, p) in registers; each
step loads k_t, v_t (any float dtype, computed in float32) contiguously along the channels. The loads
are software-pipelined (step t + 1's k, v and mask are issued before step t's arithmetic) and the
padding mask never guards a load: padded steps compute and are dropped with `tl.where`, so a padded
batch (SFT, GRPO, PPO) pays no dependent mask-then-load round trip per step.

Backward: the forward stores the pre-step states (A, B, P), (B, T, C) float32 each, when a gradient
is needed, and the backward is one reverse scan over them with the rescaled adjoints of
`wkv_torch.wkv_torch_backward`. Recomputing the states instead (what the CPU kernel does, where
memory traffic is the cost) would save 12 bytes per (row, step, channel) between forward and
backward, but the backward would then walk time twice, and on a GPU a (B * C)-thread loop over T is
latency-bound on its chain of dependent steps, not on bandwidth: one pass is the faster choice.
Gradients reach w, u, k and v, not the incoming state (as on the other paths).
"""

from __future__ import annotations

import contextlib
import os

import torch

try:  # optional: wkv.py imports this module inside try/except too, and transformers' remote-code
    # requirement check skips imports in a try block, so a saved checkpoint loads without triton.
    import triton
    import triton.language as tl
except ImportError as err:
    raise ImportError("the Triton WKV kernels need `pip install triton`") from err

from .wkv_torch import SavedStates, autograd_function

# Triton decides interpreted vs compiled when `triton.jit` wraps a kernel, i.e. at import. Before
# triton 3.4 (no `knobs`) it read the variable directly.
_knobs = getattr(triton, "knobs", None)
INTERPRETED: bool = bool(_knobs.runtime.interpret) if _knobs else os.environ.get("TRITON_INTERPRET", "0") == "1"



@triton.jit
def _wkv_forward_kernel(
    w_ptr, u_ptr, k_ptr, v_ptr, mask_ptr, a0_ptr, b0_ptr, p0_ptr,
    y_ptr, a_ptr, b_ptr, p_ptr, sa_ptr, sb_ptr, sp_ptr,
    T, C,
    HAS_MASK: tl.constexpr, SAVE_STATES: tl.constexpr, BLOCK_C: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    live = cols < C
    w = tl.load(w_ptr + cols, mask=live, other=0.0)
    u = tl.load(u_ptr + cols, mask=live, other=0.0)
    at_state = row.to(tl.int64) * C + cols
    a = tl.load(a0_ptr + at_state, mask=live, other=0.0)
    b = tl.load(b0_ptr + at_state, mask=live, other=0.0)
    p = tl.load(p0_ptr + at_state, mask=live, other=0.0)
    at = row.to(tl.int64) * T * C + cols  # (row, t, cols); int64: B * T * C may pass 2^31
    row_mask = mask_ptr + row.to(tl.int64) * T
    # Software pipelining: step t's k, v and mask were loaded during step t - 1, and step t loads step
    # t + 1's before its own arithmetic, so each load's latency hides behind a step of exps instead of
    # stalling the dependent chain. Nothing branches on the mask: every step loads and computes, and a
    # padded step's results are dropped with tl.where (its output is 0, its state is kept).
    # The last step's "next" loads read that step again (t + 1 clamped to T - 1): in bounds, unused.
    kt = tl.load(k_ptr + at, mask=live, other=0.0).to(tl.float32)
    vt = tl.load(v_ptr + at, mask=live, other=0.0).to(tl.float32)
    if HAS_MASK:
        real = tl.load(row_mask) != 0
    for t in range(T):
        step = 1 - (t + 1) // T  # 1, or 0 at the last step
        k_next = tl.load(k_ptr + at + step * C, mask=live, other=0.0).to(tl.float32)
        v_next = tl.load(v_ptr + at + step * C, mask=live, other=0.0).to(tl.float32)
        if HAS_MASK:
            real_next = tl.load(row_mask + t + step) != 0
        if SAVE_STATES:
            tl.store(sa_ptr + at, a, mask=live)
            tl.store(sb_ptr + at, b, mask=live)
            tl.store(sp_ptr + at, p, mask=live)
        uk = u + kt
        q = tl.maximum(p, uk)
        e1 = tl.exp(p - q)
        e2 = tl.exp(uk - q)
        y = (e1 * a + e2 * vt) / (e1 * b + e2)
        ww = p + w
        q = tl.maximum(ww, kt)
        e1 = tl.exp(ww - q)
        e2 = tl.exp(kt - q)
        if HAS_MASK:  # a compile-time choice: the unmasked kernel has no select at all
            y = tl.where(real, y, 0.0)
            a = tl.where(real, e1 * a + e2 * vt, a)
            b = tl.where(real, e1 * b + e2, b)
            p = tl.where(real, q, p)
            real = real_next
        else:
            a = e1 * a + e2 * vt
            b = e1 * b + e2
            p = q
        tl.store(y_ptr + at, y, mask=live)
        kt, vt = k_next, v_next
        at += C
    tl.store(a_ptr + at_state, a, mask=live)
    tl.store(b_ptr + at_state, b, mask=live)
    tl.store(p_ptr + at_state, p, mask=live)


@triton.jit
def _wkv_backward_kernel(
    w_ptr, u_ptr, k_ptr, v_ptr, mask_ptr, sa_ptr, sb_ptr, sp_ptr, gy_ptr,
    gk_ptr, gv_ptr, gw_ptr, gu_ptr,
    T, C,
    HAS_MASK: tl.constexpr, BLOCK_C: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    live = cols < C
    w = tl.load(w_ptr + cols, mask=live, other=0.0)
    u = tl.load(u_ptr + cols, mask=live, other=0.0)
    # Adjoints of the real states, dL/da = adj_a * e^{-r} and dL/db = adj_b * e^{-r}, rescaled each
    # step so the larger term is O(1); r starts at +1e38, i.e. both adjoints are 0 after the end.
    adj_a = tl.zeros([BLOCK_C], dtype=tl.float32)
    adj_b = tl.zeros([BLOCK_C], dtype=tl.float32)
    r = tl.full([BLOCK_C], 1e38, dtype=tl.float32)
    gw = tl.zeros([BLOCK_C], dtype=tl.float32)
    gu = tl.zeros([BLOCK_C], dtype=tl.float32)
    at = (row.to(tl.int64) * T + T - 1) * C + cols
    row_mask = mask_ptr + row.to(tl.int64) * T
    # Pipelined and branch-free as the forward: step t - 1's six inputs load during step t, and a padded
    # step (no gradient; the adjoints pass through) is dropped with tl.where.
    kt = tl.load(k_ptr + at, mask=live, other=0.0).to(tl.float32)
    vt = tl.load(v_ptr + at, mask=live, other=0.0).to(tl.float32)
    gyt = tl.load(gy_ptr + at, mask=live, other=0.0)
    a = tl.load(sa_ptr + at, mask=live, other=0.0)
    b = tl.load(sb_ptr + at, mask=live, other=0.0)
    p = tl.load(sp_ptr + at, mask=live, other=0.0)
    if HAS_MASK:
        real = tl.load(row_mask + T - 1) != 0
    for i in range(T):
        back = (1 - (i + 1) // T) * C  # one step back, or 0 at t = 0 (that step again: in bounds, unused)
        k_next = tl.load(k_ptr + at - back, mask=live, other=0.0).to(tl.float32)
        v_next = tl.load(v_ptr + at - back, mask=live, other=0.0).to(tl.float32)
        gy_next = tl.load(gy_ptr + at - back, mask=live, other=0.0)
        a_next = tl.load(sa_ptr + at - back, mask=live, other=0.0)
        b_next = tl.load(sb_ptr + at - back, mask=live, other=0.0)
        p_next = tl.load(sp_ptr + at - back, mask=live, other=0.0)
        if HAS_MASK:
            real_next = tl.load(row_mask + T - 2 - i + (i + 1) // T) != 0
        uk = u + kt
        m = tl.maximum(p, uk)
        e1 = tl.exp(p - m)
        e2 = tl.exp(uk - m)
        den = e1 * b + e2
        y = (e1 * a + e2 * vt) / den
        g = gyt / den  # dL/dy_t / D_t, times e^{m}; bounded since den >= 1 where it matters
        direct = g * e2  # through the current token's own e^{u + k}
        ek = tl.exp(kt - r)  # <= 1: r >= k_t by construction of the running max
        gk = direct * (vt - y) + ek * (adj_b + adj_a * vt)
        gv = direct + adj_a * ek
        du = direct * (vt - y)
        dw = tl.exp(w + p - r) * (adj_a * a + adj_b * b)  # through e^w in a_{t+1}, b_{t+1}
        decayed = w - r
        big = tl.maximum(-m, decayed)
        f1 = tl.exp(-m - big)
        f2 = tl.exp(decayed - big)
        if HAS_MASK:  # padding: no gradient, and the adjoints pass through unchanged
            gk = tl.where(real, gk, 0.0)
            gv = tl.where(real, gv, 0.0)
            gu += tl.where(real, du, 0.0)
            gw += tl.where(real, dw, 0.0)
            adj_a, adj_b = tl.where(real, g * f1 + adj_a * f2, adj_a), tl.where(real, -g * y * f1 + adj_b * f2, adj_b)
            r = tl.where(real, -big, r)
            real = real_next
        else:
            gu += du
            gw += dw
            adj_a, adj_b = g * f1 + adj_a * f2, -g * y * f1 + adj_b * f2
            r = -big
        tl.store(gk_ptr + at, gk, mask=live)  # cast to k's dtype by the store
        tl.store(gv_ptr + at, gv, mask=live)
        kt, vt, gyt, a, b, p = k_next, v_next, gy_next, a_next, b_next, p_next
        at -= C
    at_state = row.to(tl.int64) * C + cols
    tl.store(gw_ptr + at_state, gw, mask=live)
    tl.store(gu_ptr + at_state, gu, mask=live)


_sm_counts: dict[int, int] = {}


def _launch(batch: int, channels: int, device: torch.device) -> tuple[int, int]:
    """(channels per program, warps per program): one thread per channel.

    Each time step is a chain of dependent exps, so speed comes from many channels in flight on
    every SM, not from the block size: take the largest block (fewer programs, wider loads) that
    still gives each SM at least 4 programs, and 32 channels (one warp) for small problems such as
    decoding a few rows.
    """
    if device.type != "cuda":
        return 32, 1
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _sm_counts:
        _sm_counts[index] = torch.cuda.get_device_properties(index).multi_processor_count
    for block in (128, 64):
        if batch * triton.cdiv(channels, block) >= 4 * _sm_counts[index]:
            return block, block // 32
    return 32, 1


def _on_device(device: torch.device):
    """Launch on the tensors' GPU, not the current one (a no-op for the interpreter on CPU)."""
    return torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()


def _mask_arg(mask: torch.Tensor | None, placeholder: torch.Tensor) -> torch.Tensor:
    return mask.to(torch.int8).contiguous() if mask is not None else placeholder


def wkv_triton_forward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
    a0: torch.Tensor, b0: torch.Tensor, p0: torch.Tensor, mask: torch.Tensor | None, save_states: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(y, a, b, p, A, B, P): y (B, T, C) float32, the final state (B, C) each, and the pre-step
    states (B, T, C) each when `save_states` (empty otherwise). w, u: (C,); k, v: (B, T, C)."""
    B, T, C = k.shape
    k, v = k.contiguous(), v.contiguous()
    f32 = dict(device=k.device, dtype=torch.float32)
    y = torch.empty(B, T, C, **f32)
    a, b, p = (torch.empty(B, C, **f32) for _ in range(3))
    saved = tuple(torch.empty((B, T, C) if save_states else (0,), **f32) for _ in range(3))
    if T == 0:  # the kernels read step 0 before their loop: nothing to read, the state passes through
        return (y, *(s.float().clone() for s in (a0, b0, p0)), *saved)
    block, warps = _launch(B, C, k.device)
    # enable_fp_fusion: FMA contraction, one rounding instead of two; spelled out because Triton 3.9
    # warns when it is left to a default that 3.10 changes.
    with _on_device(k.device):
        _wkv_forward_kernel[(B, triton.cdiv(C, block))](
            w.float().contiguous(), u.float().contiguous(), k, v, _mask_arg(mask, k),
            *(s.float().contiguous() for s in (a0, b0, p0)), y, a, b, p, *(s if save_states else y for s in saved),
            T, C, HAS_MASK=mask is not None, SAVE_STATES=save_states, BLOCK_C=block,
            num_warps=warps, enable_fp_fusion=True,
        )
    return (y, a, b, p, *saved)


def wkv_triton_backward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
    saved: SavedStates, gy: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(gw, gu, gk, gv) from the states `wkv_triton_forward(..., save_states=True)` stored; gw, gu
    are (C,) float32, gk, gv have k's and v's dtype."""
    B, T, C = k.shape
    k, v = k.contiguous(), v.contiguous()
    gk, gv = torch.empty_like(k), torch.empty_like(v)
    gw, gu = (torch.zeros(B, C, device=k.device, dtype=torch.float32) for _ in range(2))
    if T == 0:
        return gw.sum(0), gu.sum(0), gk, gv
    block, warps = _launch(B, C, k.device)
    with _on_device(k.device):
        _wkv_backward_kernel[(B, triton.cdiv(C, block))](
            w.float().contiguous(), u.float().contiguous(), k, v, _mask_arg(mask, k), *saved,
            gy.float().contiguous(), gk, gv, gw, gu,
            T, C, HAS_MASK=mask is not None, BLOCK_C=block, num_warps=warps, enable_fp_fusion=True,
        )
    return gw.sum(0), gu.sum(0), gk, gv  # per-row partials summed here: deterministic, no atomics


WKVTritonFunction = autograd_function(
    "WKVTritonFunction", wkv_triton_forward, wkv_triton_backward,
    "WKV through the Triton kernels. Same inputs and outputs as `wkv_torch.WKVFunction`.",
)


__all__ = ["INTERPRETED", "WKVTritonFunction", "wkv_triton_backward", "wkv_triton_forward"]
