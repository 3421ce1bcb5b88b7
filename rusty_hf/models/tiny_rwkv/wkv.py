"""The RWKV-4 WKV operator: a reference recurrence and a fast path behind one dispatcher.

For each channel, with decay ``w = -exp(time_decay) < 0`` and bonus ``u = time_first``::

    wkv_t = (sum_{i<t} e^{(t-1-i) w + k_i} v_i + e^{u + k_t} v_t)
          / (sum_{i<t} e^{(t-1-i) w + k_i}     + e^{u + k_t})

It is computed with the numerically stable recurrence over a state ``(a, b, p)``: the real
numerator and denominator sums are ``a * e^p`` and ``b * e^p``, with ``p`` a running maximum of
the exponents, so nothing overflows however large the keys get.

- `wkv_reference` loops over time with plain autograd: slow, obviously right; used by tests.
- `WKVFunction` (CPU and any device) runs the same loop without autograd, keeps the per-step
  states, and has a hand-derived backward whose only sequential part is a short recurrence on
  rescaled adjoints; everything else is vectorised over time. On 2 CPU cores this beats autograd
  through the loop and log-depth scans (see docs/field-notes).
- `cpu_kernels.WKVCpuFunction` is the same math compiled to C++ (built on first use, optional): one
  vectorised pass over time per block of channels instead of ~20 dispatched ops per time step.
- `wkv` is the dispatcher the model calls: the compiled kernel on CPU when it builds, otherwise
  `WKVFunction` (set `RUSTY_CPU_KERNELS=off` to force the PyTorch operator).

Masking: positions where ``mask`` is 0 leave the state untouched and output 0, so left padding
never leaks into the recurrence. Gradients do not flow into an incoming state (training runs
whole sequences; the state is for generation).

Everything here is float32: the exponent bookkeeping needs its range.
"""

from __future__ import annotations

import torch

from .cpu_kernels import WKVCpuFunction, load_kernel

# The "empty" exponent: e^p is exactly 0 in float32, yet p + w and p - q stay finite.
MIN_EXPONENT = -1e38

WKVState = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # (a, b, p), each (B, C) float32


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


def _scan_states(
    w: torch.Tensor, k: torch.Tensor, v: torch.Tensor, a: torch.Tensor, b: torch.Tensor, p: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, WKVState]:
    """Run the state recurrence; return the states *before* each step, (B, T, C) each, and the last.

    `w` is (B, T, C) or broadcastable: masked steps carry w = 0 and k = -inf, which makes the
    update the identity, so the loop needs no branches.
    """
    As, Bss, Ps = [], [], []
    for w_t, k_t, v_t in zip(w.unbind(1), k.unbind(1), v.unbind(1)):
        As.append(a)
        Bss.append(b)
        Ps.append(p)
        ww = p + w_t
        q = torch.maximum(ww, k_t)
        e1 = torch.exp(ww - q)
        e2 = torch.exp(k_t - q)
        a = torch.addcmul(e1 * a, e2, v_t)
        b = torch.addcmul(e2, e1, b)
        p = q
    A, Bs, P = (torch.stack(xs, dim=1) for xs in (As, Bss, Ps))
    return A, Bs, P, (a, b, p)


def _outputs_from_states(u, k, v, A, Bs, P, valid):
    """wkv_t from the pre-step states, vectorised over time. Returns y, e2 and the scaled denominator."""
    uk = u + k
    m = torch.maximum(P, uk)
    e1 = torch.exp(P - m)
    e2 = torch.exp(uk - m)
    den = torch.addcmul(e2, e1, Bs)
    y = torch.addcmul(e2 * v, e1, A) / den
    if valid is not None:
        y = torch.where(valid, y, torch.zeros_like(y))
    return y, m, e2, den


class WKVFunction(torch.autograd.Function):
    """WKV with an analytic backward. Inputs are float32; see module docstring for shapes."""

    @staticmethod
    def forward(ctx, w, u, k, v, a0, b0, p0, mask):
        B, T, C = k.shape
        if mask is not None:
            valid = mask.bool()[:, :, None]  # (B, T, 1)
            w_t = torch.where(valid, w, torch.zeros((), dtype=w.dtype, device=w.device)).expand(B, T, C)
            k_eff = torch.where(valid, k, torch.full((), float("-inf"), dtype=k.dtype, device=k.device))
        else:
            valid, w_t, k_eff = None, w.expand(B, T, C), k
        A, Bs, P, (a, b, p) = _scan_states(w_t, k_eff, v, a0, b0, p0)
        y, _, _, _ = _outputs_from_states(u, k_eff, v, A, Bs, P, valid)
        ctx.save_for_backward(w, u, k_eff, v, A, Bs, P, y, mask)
        ctx.mark_non_differentiable(a, b, p)
        return y, a, b, p

    @staticmethod
    def backward(ctx, gy, *_state_grads):
        w, u, k, v, A, Bs, P, y, mask = ctx.saved_tensors
        B, T, C = k.shape
        valid = mask.bool()[:, :, None] if mask is not None else None
        w_t = w.expand(B, T, C) if valid is None else torch.where(valid, w, torch.zeros_like(w)).expand(B, T, C)
        _, m, e2, den = _outputs_from_states(u, k, v, A, Bs, P, valid)
        # Real dL/dy_t / D_t = g * e^{-m_t}; g is bounded because den >= 1 wherever it matters.
        g = gy / den
        if valid is not None:
            g = torch.where(valid, g, torch.zeros_like(g))
        gy_direct = g * e2  # = gy * e^{u+k} / D, the direct path through the current token
        gv = gy_direct.clone()
        gk = gy_direct * (v - y)
        gu = gk.sum(dim=(0, 1))

        # Adjoints of the real states, alpha_t = dL/da_t and beta_t = dL/db_t, obey
        #   alpha_t = gy_t/D_t + e^w alpha_{t+1},   beta_t = -gy_t y_t/D_t + e^w beta_{t+1}.
        # They are kept as (Ã, B̃) * e^{-r}, rescaled at each step so the larger term is O(1).
        # Only this recurrence is sequential; we store the adjoints of step t+1 for step t.
        neg_m = -m
        gy_neg = -g * y
        adj_a = torch.zeros(B, C, dtype=k.dtype, device=k.device)
        adj_b = torch.zeros_like(adj_a)
        r = torch.full_like(adj_a, -MIN_EXPONENT)
        Aa, Bb, R = [], [], []
        steps = zip(w_t.unbind(1), neg_m.unbind(1), g.unbind(1), gy_neg.unbind(1))
        for w_s, nm_s, g_s, gyn_s in reversed(list(steps)):
            Aa.append(adj_a)
            Bb.append(adj_b)
            R.append(r)
            decayed = w_s - r
            big = torch.maximum(nm_s, decayed)
            f1 = torch.exp(nm_s - big)
            f2 = torch.exp(decayed - big)
            adj_a = torch.addcmul(g_s * f1, adj_a, f2)
            adj_b = torch.addcmul(gyn_s * f1, adj_b, f2)
            r = -big
        Aa, Bb, R = (torch.stack(xs[::-1], dim=1) for xs in (Aa, Bb, R))
        # Paths through the future: a_{t+1} += e^{k_t} v_t, b_{t+1} += e^{k_t}, both scaled by e^w.
        ek = torch.exp(k - R)  # <= 1: r_{t+1} >= k_t by construction of the running max
        gv = torch.addcmul(gv, Aa, ek)
        gk = gk + ek * torch.addcmul(Bb, Aa, v)
        through_w = torch.exp(w_t + P - R) * torch.addcmul(Bb * Bs, Aa, A)
        if valid is not None:
            gk = torch.where(valid, gk, torch.zeros_like(gk))
            gv = torch.where(valid, gv, torch.zeros_like(gv))
            through_w = torch.where(valid, through_w, torch.zeros_like(through_w))
        gw = through_w.sum(dim=(0, 1))
        return gw, gu, gk, gv, None, None, None, None


def wkv(
    w: torch.Tensor,
    u: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    state: WKVState | None = None,
    mask: torch.Tensor | None = None,
) -> tuple[torch.Tensor, WKVState]:
    """Dispatcher: compute WKV in float32 with the fastest path available for these tensors.

    Args:
        w: (C,) decay (negative). u: (C,) bonus. k, v: (B, T, C), any float dtype.
        state: (a, b, p), each (B, C) float32, or None for an empty state.
        mask: (B, T), 1 for real tokens and 0 for padding, or None.

    Returns:
        (y, state): y is (B, T, C) float32; state after the last real token of each row.
    """
    B, T, C = k.shape
    w, u, k, v = w.float(), u.float(), k.float().contiguous(), v.float().contiguous()
    a, b, p = state if state is not None else empty_wkv_state(B, C, k.device)
    function = WKVFunction
    if k.device.type == "cpu" and load_kernel() is not None:
        function = WKVCpuFunction
    y, a, b, p = function.apply(w, u, k, v, a, b, p, mask)
    return y, (a, b, p)


__all__ = ["MIN_EXPONENT", "WKVFunction", "WKVState", "empty_wkv_state", "wkv", "wkv_reference"]
