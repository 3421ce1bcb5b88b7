"""The WKV operator in plain PyTorch ops: runs on any device, and is the fallback of `wkv.wkv`.

Usage::

    y, a, b, p = WKVFunction.apply(w, u, k, v, a0, b0, p0, mask)

with w, u (C,), k, v (B, T, C) and the incoming state a0, b0, p0 (B, C), all one float dtype
(float32 in the model, float64 for gradcheck), and mask (B, T) or None. `wkv_torch_forward` /
`wkv_torch_backward` are the same computation without autograd, in the signatures `wkv` registers
as a torch custom op (shared with `wkv_triton`).

The forward runs the state recurrence without autograd and keeps the per-step states; the
hand-derived backward's only sequential part is a short recurrence on rescaled adjoints, and
everything else is vectorised over time. On 2 CPU cores this beats autograd through the loop and
log-depth scans (see docs/field-notes).
"""

from __future__ import annotations

from typing import Callable

import torch

# The "empty" exponent: e^p is exactly 0 in float32, yet p + w and p - q stay finite.
MIN_EXPONENT = -1e38

SavedStates = tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # (A, B, P), each (B, T, C)


def _scan_states(
    w: torch.Tensor, k: torch.Tensor, v: torch.Tensor, a: torch.Tensor, b: torch.Tensor, p: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
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


def _masked(w: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None):
    """(valid (B, T, 1) or None, w per step (B, T, C), k with -inf at padding): padding is identity."""
    B, T, C = k.shape
    if mask is None:
        return None, w.expand(B, T, C), k
    valid = mask.bool()[:, :, None]
    w_t = torch.where(valid, w, torch.zeros((), dtype=w.dtype, device=w.device)).expand(B, T, C)
    return valid, w_t, torch.where(valid, k, torch.full((), float("-inf"), dtype=k.dtype, device=k.device))


def wkv_torch_forward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
    a0: torch.Tensor, b0: torch.Tensor, p0: torch.Tensor, mask: torch.Tensor | None, save_states: bool,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(y, a, b, p, A, B, P): outputs, final state, and the pre-step states when `save_states`
    (empty otherwise). Nothing here is recorded by autograd."""
    with torch.no_grad():
        valid, w_t, k_eff = _masked(w, k, mask)
        A, Bs, P, (a, b, p) = _scan_states(w_t, k_eff, v, a0, b0, p0)
        y, _, _, _ = _outputs_from_states(u, k_eff, v, A, Bs, P, valid)
    if not save_states:
        A, Bs, P = (k.new_empty(0) for _ in range(3))
    return y, a, b, p, A, Bs, P


def wkv_torch_backward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
    saved: SavedStates, gy: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(gw, gu, gk, gv) from the pre-step states `wkv_torch_forward(..., save_states=True)` kept."""
    A, Bs, P = saved
    B, T, C = k.shape
    valid, w_t, k = _masked(w, k, mask)
    y, m, e2, den = _outputs_from_states(u, k, v, A, Bs, P, valid)
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
    return gw, gu, gk, gv


def autograd_function(name: str, forward: Callable, backward: Callable, doc: str) -> type[torch.autograd.Function]:
    """An autograd.Function `name` with WKVFunction's apply signature, over a `forward` and
    `backward` with `wkv_torch_forward`'s and `wkv_torch_backward`'s. The states are kept only when
    a gradient is needed; none flows into the incoming state (it is marked non-differentiable)."""

    def forward_(ctx, w, u, k, v, a0, b0, p0, mask):
        y, a, b, p, *saved = forward(w, u, k, v, a0, b0, p0, mask, any(ctx.needs_input_grad[:4]))
        ctx.save_for_backward(w, u, k, v, mask, *saved)
        ctx.mark_non_differentiable(a, b, p)
        return y, a, b, p

    def backward_(ctx, gy, *_state_grads):
        w, u, k, v, mask, *saved = ctx.saved_tensors
        gw, gu, gk, gv = backward(w, u, k, v, mask, tuple(saved), gy)
        return gw.reshape(w.shape), gu.reshape(u.shape), gk, gv, None, None, None, None

    namespace = {"__doc__": doc, "forward": staticmethod(forward_), "backward": staticmethod(backward_)}
    return type(name, (torch.autograd.Function,), namespace)


WKVFunction = autograd_function(
    "WKVFunction", wkv_torch_forward, wkv_torch_backward,
    "WKV with an analytic backward, in PyTorch ops on any device; see the module docstring.",
)


__all__ = ["MIN_EXPONENT", "WKVFunction", "autograd_function", "wkv_torch_backward", "wkv_torch_forward"]
