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

Time chunks (`chunk_length`): with few rows (a packed row is B=1, T in the thousands) one thread per channel
leaves the GPU idle along a chain of T steps. The same kernels then run per (row, channel block, chunk of T): a
local pass from the empty state gives each chunk's end state, `_wkv_carry_kernel` walks the chunks to give each
its true incoming state, and a second pass produces the outputs; the backward mirrors it with the adjoints. One
chunk (short rows, wide batches, any CPU) is the single pass described above.

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
def _state_or_empty(a_ptr, b_ptr, e_ptr, at, live, LOAD: tl.constexpr, EMPTY: tl.constexpr, BLOCK_C: tl.constexpr):
    """A state triple (value, value, exponent) loaded at ``at``, or the empty one: zeros, exponent ``EMPTY``."""
    if LOAD:
        a = tl.load(a_ptr + at, mask=live, other=0.0)
        b = tl.load(b_ptr + at, mask=live, other=0.0)
        e = tl.load(e_ptr + at, mask=live, other=EMPTY)
    else:
        a = tl.zeros([BLOCK_C], dtype=tl.float32)
        b = tl.zeros([BLOCK_C], dtype=tl.float32)
        e = tl.full([BLOCK_C], EMPTY, dtype=tl.float32)
    return a, b, e


@triton.jit
def _wkv_forward_kernel(
    w_ptr, u_ptr, k_ptr, v_ptr, mask_ptr, a0_ptr, b0_ptr, p0_ptr,
    y_ptr, a_ptr, b_ptr, p_ptr, sa_ptr, sb_ptr, sp_ptr, n_ptr,
    B, T, C, L,
    HAS_MASK: tl.constexpr, SAVE_STATES: tl.constexpr, LOCAL: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # Program (row, block of channels, chunk): steps [chunk * L, chunk * L + L) of one row. LOCAL (a time-chunked
    # run's first pass): start from the empty state, store only the end state and the chunk's real steps (n_ptr).
    # Otherwise start from the chunk's incoming state (a0, b0, p0 at [chunk, row]) and store y (and the pre-step
    # states); the end state goes to [chunk, row] of (a, b, p) either way. One chunk (L >= T): the whole row.
    row = tl.program_id(0)
    chunk = tl.program_id(2)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    live = cols < C
    w = tl.load(w_ptr + cols, mask=live, other=0.0)
    u = tl.load(u_ptr + cols, mask=live, other=0.0)
    at_state = (chunk.to(tl.int64) * B + row) * C + cols
    a, b, p = _state_or_empty(a0_ptr, b0_ptr, p0_ptr, at_state, live, not LOCAL, -1e38, BLOCK_C)  # -1e38: MIN_EXPONENT
    t0 = chunk * L
    steps = tl.minimum(L, T - t0)
    at = (row.to(tl.int64) * T + t0) * C + cols  # (row, t, cols); int64: B * T * C may pass 2^31
    row_mask = mask_ptr + row.to(tl.int64) * T + t0
    real_steps = tl.zeros([BLOCK_C], dtype=tl.float32)
    # Software pipelining: step t's k, v and mask were loaded during step t - 1, and step t loads step
    # t + 1's before its own arithmetic, so each load's latency hides behind a step of exps instead of
    # stalling the dependent chain. Nothing branches on the mask: every step loads and computes, and a
    # padded step's results are dropped with tl.where (its output is 0, its state is kept).
    # The last step's "next" loads read that step again (t + 1 clamped to the chunk's last): in bounds, unused.
    kt = tl.load(k_ptr + at, mask=live, other=0.0).to(tl.float32)
    vt = tl.load(v_ptr + at, mask=live, other=0.0).to(tl.float32)
    if HAS_MASK:
        real = tl.load(row_mask) != 0
    for t in range(steps):
        step = 1 - (t + 1) // steps  # 1, or 0 at the last step
        k_next = tl.load(k_ptr + at + step * C, mask=live, other=0.0).to(tl.float32)
        v_next = tl.load(v_ptr + at + step * C, mask=live, other=0.0).to(tl.float32)
        if HAS_MASK:
            real_next = tl.load(row_mask + t + step) != 0
        if SAVE_STATES and not LOCAL:
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
            if LOCAL:
                real_steps += tl.where(real, 1.0, 0.0)
            real = real_next
        else:
            a = e1 * a + e2 * vt
            b = e1 * b + e2
            p = q
        if not LOCAL:
            tl.store(y_ptr + at, y, mask=live)
        kt, vt = k_next, v_next
        at += C
    tl.store(a_ptr + at_state, a, mask=live)
    tl.store(b_ptr + at_state, b, mask=live)
    tl.store(p_ptr + at_state, p, mask=live)
    if LOCAL and HAS_MASK:
        tl.store(n_ptr + at_state, real_steps, mask=live)


@triton.jit
def _wkv_backward_kernel(
    w_ptr, u_ptr, k_ptr, v_ptr, mask_ptr, sa_ptr, sb_ptr, sp_ptr, gy_ptr,
    gk_ptr, gv_ptr, gw_ptr, gu_ptr, xa_ptr, xb_ptr, xr_ptr, n_ptr,
    B, T, C, L,
    HAS_MASK: tl.constexpr, LOCAL: tl.constexpr, HAS_INIT: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # Program (row, block of channels, chunk): steps [chunk * L, chunk * L + L) in reverse. The adjoints start
    # at zero, or with HAS_INIT at the chunk's incoming ones (xa, xb, xr at [chunk, row]: what the later chunks
    # pass back). LOCAL (a time-chunked backward's first pass): no gradients, the end adjoints go to (xa, xb, xr)
    # and the chunk's real steps to n_ptr. Otherwise gk, gv and the chunk's partial gw, gu ([chunk, row]).
    row = tl.program_id(0)
    chunk = tl.program_id(2)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    live = cols < C
    w = tl.load(w_ptr + cols, mask=live, other=0.0)
    u = tl.load(u_ptr + cols, mask=live, other=0.0)
    at_state = (chunk.to(tl.int64) * B + row) * C + cols
    # Adjoints of the real states, dL/da = adj_a * e^{-r} and dL/db = adj_b * e^{-r}, rescaled each
    # step so the larger term is O(1); r starts at +1e38, i.e. both adjoints are 0 after the end.
    adj_a, adj_b, r = _state_or_empty(xa_ptr, xb_ptr, xr_ptr, at_state, live, HAS_INIT, 1e38, BLOCK_C)
    gw = tl.zeros([BLOCK_C], dtype=tl.float32)
    gu = tl.zeros([BLOCK_C], dtype=tl.float32)
    t0 = chunk * L
    steps = tl.minimum(L, T - t0)
    at = (row.to(tl.int64) * T + t0 + steps - 1) * C + cols
    row_mask = mask_ptr + row.to(tl.int64) * T + t0
    real_steps = tl.zeros([BLOCK_C], dtype=tl.float32)
    # Pipelined and branch-free as the forward: step t - 1's six inputs load during step t, and a padded
    # step (no gradient; the adjoints pass through) is dropped with tl.where.
    kt = tl.load(k_ptr + at, mask=live, other=0.0).to(tl.float32)
    vt = tl.load(v_ptr + at, mask=live, other=0.0).to(tl.float32)
    gyt = tl.load(gy_ptr + at, mask=live, other=0.0)
    a = tl.load(sa_ptr + at, mask=live, other=0.0)
    b = tl.load(sb_ptr + at, mask=live, other=0.0)
    p = tl.load(sp_ptr + at, mask=live, other=0.0)
    if HAS_MASK:
        real = tl.load(row_mask + steps - 1) != 0
    for i in range(steps):
        back = (1 - (i + 1) // steps) * C  # one step back, or 0 at the chunk's first (that step again: unused)
        k_next = tl.load(k_ptr + at - back, mask=live, other=0.0).to(tl.float32)
        v_next = tl.load(v_ptr + at - back, mask=live, other=0.0).to(tl.float32)
        gy_next = tl.load(gy_ptr + at - back, mask=live, other=0.0)
        a_next = tl.load(sa_ptr + at - back, mask=live, other=0.0)
        b_next = tl.load(sb_ptr + at - back, mask=live, other=0.0)
        p_next = tl.load(sp_ptr + at - back, mask=live, other=0.0)
        if HAS_MASK:
            real_next = tl.load(row_mask + steps - 2 - i + (i + 1) // steps) != 0
        uk = u + kt
        m = tl.maximum(p, uk)
        e1 = tl.exp(p - m)
        e2 = tl.exp(uk - m)
        den = e1 * b + e2
        y = (e1 * a + e2 * vt) / den
        g = gyt / den  # dL/dy_t / D_t, times e^{m}; bounded since den >= 1 where it matters
        decayed = w - r
        big = tl.maximum(-m, decayed)
        f1 = tl.exp(-m - big)
        f2 = tl.exp(decayed - big)
        if not LOCAL:
            direct = g * e2  # through the current token's own e^{u + k}
            ek = tl.exp(kt - r)  # <= 1: r >= k_t by construction of the running max
            gk = direct * (vt - y) + ek * (adj_b + adj_a * vt)
            gv = direct + adj_a * ek
            du = direct * (vt - y)
            dw = tl.exp(w + p - r) * (adj_a * a + adj_b * b)  # through e^w in a_{t+1}, b_{t+1}
        if HAS_MASK:  # padding: no gradient, and the adjoints pass through unchanged
            if not LOCAL:
                gk = tl.where(real, gk, 0.0)
                gv = tl.where(real, gv, 0.0)
                gu += tl.where(real, du, 0.0)
                gw += tl.where(real, dw, 0.0)
            else:
                real_steps += tl.where(real, 1.0, 0.0)
            adj_a, adj_b = tl.where(real, g * f1 + adj_a * f2, adj_a), tl.where(real, -g * y * f1 + adj_b * f2, adj_b)
            r = tl.where(real, -big, r)
            real = real_next
        else:
            if not LOCAL:
                gu += du
                gw += dw
            adj_a, adj_b = g * f1 + adj_a * f2, -g * y * f1 + adj_b * f2
            r = -big
        if not LOCAL:
            tl.store(gk_ptr + at, gk, mask=live)  # cast to k's dtype by the store
            tl.store(gv_ptr + at, gv, mask=live)
        kt, vt, gyt, a, b, p = k_next, v_next, gy_next, a_next, b_next, p_next
        at -= C
    if LOCAL:
        tl.store(xa_ptr + at_state, adj_a, mask=live)
        tl.store(xb_ptr + at_state, adj_b, mask=live)
        tl.store(xr_ptr + at_state, r, mask=live)
        if HAS_MASK:
            tl.store(n_ptr + at_state, real_steps, mask=live)
    else:
        tl.store(gw_ptr + at_state, gw, mask=live)
        tl.store(gu_ptr + at_state, gu, mask=live)


@triton.jit
def _wkv_carry_kernel(
    w_ptr, ea_ptr, eb_ptr, ep_ptr, n_ptr, s0a_ptr, s0b_ptr, s0p_ptr, ia_ptr, ib_ptr, ip_ptr,
    B, T, C, L, CHUNKS,
    HAS_MASK: tl.constexpr, HAS_S0: tl.constexpr, BACKWARD: tl.constexpr, BLOCK_C: tl.constexpr,
):
    # A time-chunked pass's middle step, one program per (row, block of channels), a loop over the chunks: the
    # state entering each chunk (ia, ib, ip at [chunk, row]) from the one entering the row (s0, or empty) and the
    # chunks' local end states (ea, eb, ep: each chunk run from the empty state). Over n real steps the state
    # decays by e^{n w}: carried = decayed + local, in the same (value, exponent) form as one step.
    # BACKWARD: the adjoints (adj_a, adj_b, r) run from the last chunk to the first, exponent -r.
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    live = cols < C
    w = tl.load(w_ptr + cols, mask=live, other=0.0)
    a, b, p = _state_or_empty(s0a_ptr, s0b_ptr, s0p_ptr, row.to(tl.int64) * C + cols, live, HAS_S0, -1e38, BLOCK_C)
    sign = -1.0 if BACKWARD else 1.0
    for i in range(CHUNKS):
        if BACKWARD:
            chunk = CHUNKS - 1 - i
        else:
            chunk = i
        at = (chunk * B + row.to(tl.int64)) * C + cols
        tl.store(ia_ptr + at, a, mask=live)
        tl.store(ib_ptr + at, b, mask=live)
        tl.store(ip_ptr + at, sign * p, mask=live)
        la = tl.load(ea_ptr + at, mask=live, other=0.0)
        lb = tl.load(eb_ptr + at, mask=live, other=0.0)
        lp = sign * tl.load(ep_ptr + at, mask=live, other=0.0)
        if HAS_MASK:
            n = tl.load(n_ptr + at, mask=live, other=0.0)
        else:
            n = tl.zeros([BLOCK_C], dtype=tl.float32) + tl.minimum(L, T - chunk * L)
        decayed = p + n * w
        q = tl.maximum(decayed, lp)
        e1 = tl.exp(decayed - q)
        e2 = tl.exp(lp - q)
        a = e1 * a + e2 * la
        b = e1 * b + e2 * lb
        p = q


_sm_counts: dict[int, int] = {}
CHUNK_ENV = "RUSTY_WKV_CHUNK"  # steps per time chunk; 0 or "off": one pass over each row (see `chunk_length`)
MIN_CHUNK = 32  # steps: shorter chunks spend more on each program's start than their parallelism returns
THREADS_PER_SM = 1024  # channels in flight per multiprocessor that time chunking aims for (half of the 2048 resident)


def _sm_count(device: torch.device) -> int:
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _sm_counts:
        _sm_counts[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _sm_counts[index]


def chunk_length(batch: int, steps: int, channels: int, device: torch.device) -> int:
    """Steps per time chunk; `steps` or more means one pass over each row.

    A row's loop over time is a chain of dependent steps, so a kernel with one thread per (row, channel) is
    latency-bound when rows x channels cannot fill the GPU: B=8 x C=512 is 4,096 threads on 132 SMs. Cut in
    chunks, the forward runs each chunk from the empty state in parallel (its end state and real steps), carries
    the state across chunks (a short loop: over n real steps a state decays by e^{n w}), then runs every chunk
    again from its true incoming state; the backward does the same with the adjoints, in reverse. Twice the
    arithmetic, a chain T / L + 2 L long instead of T. Chunks are cut when T holds at least 4 whole ones of at least
    MIN_CHUNK steps, sized to put THREADS_PER_SM channels in flight per SM. RUSTY_WKV_CHUNK=N forces N steps per
    chunk on any device (the interpreter's tests), 0 or "off" one pass.
    """
    forced = os.environ.get(CHUNK_ENV, "").strip().lower()
    if forced not in ("", "auto"):
        if forced != "off" and not forced.isdigit():
            raise ValueError(f"{CHUNK_ENV}={forced!r}: expected a number of steps, 0, off or auto")
        length = 0 if forced == "off" else int(forced)
        return length if length > 0 else max(steps, 1)
    if device.type != "cuda" or batch * channels == 0:
        return max(steps, 1)
    wanted = triton.cdiv(_sm_count(device) * THREADS_PER_SM, batch * channels)
    length = max(MIN_CHUNK, triton.cdiv(steps, wanted))
    return length if steps // length >= 4 else max(steps, 1)


def _launch(programs: int, channels: int, device: torch.device) -> tuple[int, int]:
    """(channels per program, warps per program): one thread per channel; `programs`: rows x time chunks.

    Each time step is a chain of dependent exps, so speed comes from many channels in flight on
    every SM, not from the block size: take the largest block (fewer programs, wider loads) that
    still gives each SM at least 4 programs, and 32 channels (one warp) for small problems such as
    decoding a few rows.
    """
    if device.type != "cuda":
        return 32, 1
    for block in (128, 64):
        if programs * triton.cdiv(channels, block) >= 4 * _sm_count(device):
            return block, block // 32
    return 32, 1


def _on_device(device: torch.device):
    """Launch on the tensors' GPU, not the current one (a no-op for the interpreter on CPU)."""
    return torch.cuda.device(device) if device.type == "cuda" else contextlib.nullcontext()


def _mask_arg(mask: torch.Tensor | None, placeholder: torch.Tensor) -> torch.Tensor:
    return mask.to(torch.int8).contiguous() if mask is not None else placeholder


def _plan(B: int, T: int, C: int, mask: torch.Tensor | None, device: torch.device) -> tuple[int, int, tuple, dict]:
    """(steps per chunk, chunks, grid, launch options) of one forward or backward call."""
    length = chunk_length(B, T, C, device)
    chunks = triton.cdiv(T, length)
    block, warps = _launch(B * chunks, C, device)
    # enable_fp_fusion: FMA contraction, one rounding instead of two; spelled out because Triton 3.9
    # warns when it is left to a default that 3.10 changes.
    options = dict(HAS_MASK=mask is not None, BLOCK_C=block, num_warps=warps, enable_fp_fusion=True)
    return length, chunks, (B, triton.cdiv(C, block), chunks), options


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
    saved = tuple(torch.empty((B, T, C) if save_states else (0,), **f32) for _ in range(3))
    if T == 0:  # the kernels read step 0 before their loop: nothing to read, the state passes through
        return (y, *(s.float().clone() for s in (a0, b0, p0)), *saved)
    length, chunks, grid, options = _plan(B, T, C, mask, k.device)
    ends = tuple(torch.empty(chunks, B, C, **f32) for _ in range(3))  # each chunk's end state
    w, u, mask_arg = w.float().contiguous(), u.float().contiguous(), _mask_arg(mask, k)
    start = incoming = tuple(s.float().contiguous() for s in (a0, b0, p0))
    with _on_device(k.device):
        if chunks > 1:
            real = torch.empty(chunks, B, C, **f32) if mask is not None else y
            _wkv_forward_kernel[grid](w, u, k, v, mask_arg, *start, y, *ends, y, y, y, real, B, T, C, length,
                                      SAVE_STATES=False, LOCAL=True, **options)
            start = tuple(torch.empty(chunks, B, C, **f32) for _ in range(3))  # the state entering each chunk
            _wkv_carry_kernel[grid[:2]](w, *ends, real, *incoming, *start, B, T, C, length, chunks,
                                        HAS_S0=True, BACKWARD=False, **options)
        _wkv_forward_kernel[grid](
            w, u, k, v, mask_arg, *start, y, *ends, *(s if save_states else y for s in saved), y,
            B, T, C, length, SAVE_STATES=save_states, LOCAL=False, **options,
        )
    # the final state outlives the call (a prefill's state through decoding): not a view of every chunk's end
    return (y, *(e[-1].clone() if chunks > 1 else e[0] for e in ends), *saved)


def wkv_triton_backward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
    saved: SavedStates, gy: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(gw, gu, gk, gv) from the states `wkv_triton_forward(..., save_states=True)` stored; gw, gu
    are (C,) float32, gk, gv have k's and v's dtype."""
    B, T, C = k.shape
    k, v = k.contiguous(), v.contiguous()
    gk, gv = torch.empty_like(k), torch.empty_like(v)
    if T == 0:
        zero = torch.zeros(C, device=k.device, dtype=torch.float32)
        return zero, zero.clone(), gk, gv
    length, chunks, grid, options = _plan(B, T, C, mask, k.device)
    f32 = dict(device=k.device, dtype=torch.float32)
    gw, gu = (torch.empty(chunks, B, C, **f32) for _ in range(2))  # per (chunk, row) partials
    w, u, gy, mask_arg = w.float().contiguous(), u.float().contiguous(), gy.float().contiguous(), _mask_arg(mask, k)
    start = (gw, gw, gw)  # unread without HAS_INIT
    with _on_device(k.device):
        if chunks > 1:
            ends = tuple(torch.empty(chunks, B, C, **f32) for _ in range(3))  # each chunk's local adjoints
            real = torch.empty(chunks, B, C, **f32) if mask is not None else gw
            _wkv_backward_kernel[grid](w, u, k, v, mask_arg, *saved, gy, gk, gv, gw, gu, *ends, real, B, T, C, length,
                                       LOCAL=True, HAS_INIT=False, **options)
            start = tuple(torch.empty(chunks, B, C, **f32) for _ in range(3))  # the adjoints entering each chunk
            _wkv_carry_kernel[grid[:2]](w, *ends, real, gw, gw, gw, *start, B, T, C, length, chunks,
                                        HAS_S0=False, BACKWARD=True, **options)
        _wkv_backward_kernel[grid](
            w, u, k, v, mask_arg, *saved, gy, gk, gv, gw, gu, *start, gw, B, T, C, length,
            LOCAL=False, HAS_INIT=chunks > 1, **options,
        )
    # per-(chunk, row) partials summed here: deterministic, no atomics
    return gw.sum((0, 1)), gu.sum((0, 1)), gk, gv


WKVTritonFunction = autograd_function(
    "WKVTritonFunction", wkv_triton_forward, wkv_triton_backward,
    "WKV through the Triton kernels. Same inputs and outputs as `wkv_torch.WKVFunction`.",
)


__all__ = ["CHUNK_ENV", "INTERPRETED", "WKVTritonFunction", "chunk_length", "wkv_triton_backward", "wkv_triton_forward"]
