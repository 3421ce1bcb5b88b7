"""A compiled CPU kernel for WKV: the same math as `wkv.WKVFunction`, in C++.

The pure-PyTorch operator spends most of its time dispatching ~20 small ops per time step. This
kernel walks time once per block of 64 channels (the channel loop vectorised), runs the blocks in
parallel on ATen's thread pool, and recomputes the forward states inside the backward instead of
storing them. It is compiled with -march=native for the machine that builds it.

It is built on first use with `torch.utils.cpp_extension.load_inline` (needs a C++ compiler and
ninja; cached under ~/.cache/torch_extensions) and is optional: `load_kernel()` returns None when the
build is impossible or `RUSTY_WKV_KERNEL=python`, and `wkv.wkv` then uses the PyTorch operator.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading

import torch

logger = logging.getLogger(__name__)

_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <cmath>
#include <vector>

// Channels are processed in blocks of CB with time as the outer loop, so the inner loop runs over
// contiguous memory and the compiler vectorises it (exp included, through libmvec). The math is
// branch-free: m = max(x, y); e^{x-m}, e^{y-m}. Masked steps leave the state untouched and give y = 0.
constexpr int64_t CB = 64;

// Fold token (k, v) into the state (a, b, p) after decaying it by e^w.
template <typename T>
static inline void advance(T w, T k, T v, T& a, T& b, T& p) {
    const T ww = p + w;
    const T q = ww > k ? ww : k;
    const T f1 = std::exp(ww - q), f2 = std::exp(k - q);
    a = f1 * a + f2 * v;
    b = f1 * b + f2;
    p = q;
}

// wkv_t from the pre-step state: returns it, with e^{u+k-m} and the scaled denominator.
template <typename T>
static inline T output(T u, T k, T v, T a, T b, T p, T& m, T& e2, T& den) {
    const T uk = u + k;
    m = p > uk ? p : uk;
    const T e1 = std::exp(p - m);
    e2 = std::exp(uk - m);
    den = e1 * b + e2;
    return (e1 * a + e2 * v) / den;
}

template <typename T>
static void forward_block(int64_t Tn, int64_t C, int64_t n, const T* w, const T* u, const T* k, const T* v,
                          const bool* mask, T* y, T* a, T* b, T* p) {
    for (int64_t t = 0; t < Tn; ++t) {
        const T* kt = k + t * C; const T* vt = v + t * C; T* yt = y + t * C;
        if (mask && !mask[t]) { for (int64_t c = 0; c < n; ++c) yt[c] = 0; continue; }
        _Pragma("omp simd")
        for (int64_t c = 0; c < n; ++c) {
            T m, e2, den;
            yt[c] = output(u[c], kt[c], vt[c], a[c], b[c], p[c], m, e2, den);
            advance(w[c], kt[c], vt[c], a[c], b[c], p[c]);
        }
    }
}

template <typename T>
static void backward_block(int64_t Tn, int64_t C, int64_t n, const T* w, const T* u, const T* k, const T* v,
                           const bool* mask, const T* gy, const T* a0, const T* b0, const T* p0, T* gk, T* gv,
                           T* gw, T* gu, std::vector<T>& buf) {
    // Recompute the pre-step states (a_t, b_t, p_t) of the block: buf[(3t + j) * CB + c].
    T a[CB], b[CB], p[CB], adj_a[CB], adj_b[CB], r[CB];
    for (int64_t c = 0; c < n; ++c) { a[c] = a0[c]; b[c] = b0[c]; p[c] = p0[c]; }
    for (int64_t t = 0; t < Tn; ++t) {
        T* sa = &buf[(3 * t) * CB]; T* sb = sa + CB; T* sp = sb + CB;
        _Pragma("omp simd")
        for (int64_t c = 0; c < n; ++c) { sa[c] = a[c]; sb[c] = b[c]; sp[c] = p[c]; }
        if (mask && !mask[t]) continue;
        const T* kt = k + t * C; const T* vt = v + t * C;
        _Pragma("omp simd")
        for (int64_t c = 0; c < n; ++c) advance(w[c], kt[c], vt[c], a[c], b[c], p[c]);
    }
    // Adjoints of the real states kept as (adj_a, adj_b) * e^{-r}, as in the PyTorch operator.
    for (int64_t c = 0; c < n; ++c) { adj_a[c] = 0; adj_b[c] = 0; r[c] = T(1e38); gw[c] = 0; gu[c] = 0; }
    for (int64_t t = Tn - 1; t >= 0; --t) {
        const T* kt = k + t * C; const T* vt = v + t * C; const T* gyt = gy + t * C;
        T* gkt = gk + t * C; T* gvt = gv + t * C;
        if (mask && !mask[t]) { for (int64_t c = 0; c < n; ++c) { gkt[c] = 0; gvt[c] = 0; } continue; }
        const T* sa = &buf[(3 * t) * CB]; const T* sb = sa + CB; const T* sp = sb + CB;
        _Pragma("omp simd")
        for (int64_t c = 0; c < n; ++c) {
            T m, e2, den;
            const T yv = output(u[c], kt[c], vt[c], sa[c], sb[c], sp[c], m, e2, den);
            const T g = gyt[c] / den;
            const T ek = std::exp(kt[c] - r[c]);
            const T direct = g * e2;
            gu[c] += direct * (vt[c] - yv);
            gkt[c] = direct * (vt[c] - yv) + ek * (adj_b[c] + adj_a[c] * vt[c]);
            gvt[c] = direct + adj_a[c] * ek;
            gw[c] += std::exp(w[c] + sp[c] - r[c]) * (adj_a[c] * sa[c] + adj_b[c] * sb[c]);
            const T decayed = w[c] - r[c];
            const T big = -m > decayed ? -m : decayed;
            const T f1 = std::exp(-m - big), f2 = std::exp(decayed - big);
            adj_a[c] = g * f1 + adj_a[c] * f2;
            adj_b[c] = -g * yv * f1 + adj_b[c] * f2;
            r[c] = -big;
        }
    }
}

// k, v: (B, T, C) contiguous; w, u: (C); a, b, p: (B, C) updated in place; mask: (B, T) bool or empty.
torch::Tensor wkv_forward(torch::Tensor w, torch::Tensor u, torch::Tensor k, torch::Tensor v,
                          torch::Tensor a, torch::Tensor b, torch::Tensor p, torch::Tensor mask) {
    const int64_t B = k.size(0), Tn = k.size(1), C = k.size(2), nblocks = (C + CB - 1) / CB;
    auto y = torch::empty_like(k);
    const bool has_mask = mask.numel() > 0;
    AT_DISPATCH_FLOATING_TYPES(k.scalar_type(), "wkv_forward", [&] {
        const scalar_t *wp = w.data_ptr<scalar_t>(), *up = u.data_ptr<scalar_t>();
        const scalar_t *kp = k.data_ptr<scalar_t>(), *vp = v.data_ptr<scalar_t>();
        scalar_t *yp = y.data_ptr<scalar_t>(), *ap = a.data_ptr<scalar_t>(), *bp = b.data_ptr<scalar_t>(),
                 *pp = p.data_ptr<scalar_t>();
        const bool* mp = has_mask ? mask.data_ptr<bool>() : nullptr;
        at::parallel_for(0, B * nblocks, 1, [&](int64_t begin, int64_t end) {
            for (int64_t j = begin; j < end; ++j) {
                const int64_t bi = j / nblocks, c0 = (j % nblocks) * CB, n = std::min(CB, C - c0);
                const int64_t base = bi * Tn * C + c0, sbase = bi * C + c0;
                forward_block<scalar_t>(Tn, C, n, wp + c0, up + c0, kp + base, vp + base, mp ? mp + bi * Tn : nullptr,
                                        yp + base, ap + sbase, bp + sbase, pp + sbase);
            }
        });
    });
    return y;
}

// Returns gk, gv (B, T, C) and per-(batch, channel) partial gw, gu (B, C); the caller sums over B.
std::vector<torch::Tensor> wkv_backward(torch::Tensor w, torch::Tensor u, torch::Tensor k, torch::Tensor v,
                                        torch::Tensor a0, torch::Tensor b0, torch::Tensor p0, torch::Tensor mask,
                                        torch::Tensor gy) {
    const int64_t B = k.size(0), Tn = k.size(1), C = k.size(2), nblocks = (C + CB - 1) / CB;
    auto gk = torch::empty_like(k), gv = torch::empty_like(k);
    auto gw = torch::zeros_like(a0), gu = torch::zeros_like(a0);
    const bool has_mask = mask.numel() > 0;
    AT_DISPATCH_FLOATING_TYPES(k.scalar_type(), "wkv_backward", [&] {
        const scalar_t *wp = w.data_ptr<scalar_t>(), *up = u.data_ptr<scalar_t>();
        const scalar_t *kp = k.data_ptr<scalar_t>(), *vp = v.data_ptr<scalar_t>(), *gyp = gy.data_ptr<scalar_t>();
        const scalar_t *ap = a0.data_ptr<scalar_t>(), *bp = b0.data_ptr<scalar_t>(), *pp = p0.data_ptr<scalar_t>();
        scalar_t *gkp = gk.data_ptr<scalar_t>(), *gvp = gv.data_ptr<scalar_t>();
        scalar_t *gwp = gw.data_ptr<scalar_t>(), *gup = gu.data_ptr<scalar_t>();
        const bool* mp = has_mask ? mask.data_ptr<bool>() : nullptr;
        at::parallel_for(0, B * nblocks, 1, [&](int64_t begin, int64_t end) {
            std::vector<scalar_t> buf(3 * Tn * CB);
            for (int64_t j = begin; j < end; ++j) {
                const int64_t bi = j / nblocks, c0 = (j % nblocks) * CB, n = std::min(CB, C - c0);
                const int64_t base = bi * Tn * C + c0, sbase = bi * C + c0;
                backward_block<scalar_t>(Tn, C, n, wp + c0, up + c0, kp + base, vp + base,
                                         mp ? mp + bi * Tn : nullptr, gyp + base, ap + sbase, bp + sbase, pp + sbase,
                                         gkp + base, gvp + base, gwp + sbase, gup + sbase, buf);
            }
        });
    });
    return {gk, gv, gw, gu};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &wkv_forward, "WKV forward (CPU)");
    m.def("backward", &wkv_backward, "WKV backward (CPU)");
}
"""

_lock = threading.Lock()
_kernel = None
_tried = False


def load_kernel():
    """The compiled module, building it once per process; None when unavailable (reason logged once)."""
    global _kernel, _tried
    if _tried:
        return _kernel
    with _lock:
        if _tried:
            return _kernel
        _tried = True
        if os.environ.get("RUSTY_WKV_KERNEL", "auto").lower() == "python":
            return None
        if shutil.which(os.environ.get("CXX", "c++")) is None:
            logger.warning("WKV: no C++ compiler found; using the PyTorch operator (slower on CPU)")
            return None
        try:
            from torch.utils.cpp_extension import load_inline

            _kernel = load_inline(
                name="rusty_wkv_cpu_v4",
                cpp_sources=[_SOURCE],
                extra_cflags=["-O3", "-march=native", "-ffast-math", "-fopenmp-simd"],
                verbose=False,
            )
        except Exception as err:  # any build failure: fall back, loudly once
            logger.warning("WKV: could not build the C++ CPU kernel (%s); using the PyTorch operator", err)
            _kernel = None
        return _kernel


class WKVCpuFunction(torch.autograd.Function):
    """WKV on CPU through the compiled kernel. Same inputs and outputs as `wkv.WKVFunction`."""

    @staticmethod
    def forward(ctx, w, u, k, v, a0, b0, p0, mask):
        kernel = load_kernel()
        mask_t = mask.bool().contiguous() if mask is not None else torch.empty(0, dtype=torch.bool)
        a, b, p = a0.clone(), b0.clone(), p0.clone()
        y = kernel.forward(w.contiguous(), u.contiguous(), k, v, a, b, p, mask_t)
        ctx.save_for_backward(w, u, k, v, a0, b0, p0, mask_t)
        ctx.mark_non_differentiable(a, b, p)
        return y, a, b, p

    @staticmethod
    def backward(ctx, gy, *_state_grads):
        w, u, k, v, a0, b0, p0, mask_t = ctx.saved_tensors
        gk, gv, gw, gu = load_kernel().backward(
            w.contiguous(), u.contiguous(), k, v, a0.contiguous(), b0.contiguous(), p0.contiguous(), mask_t,
            gy.contiguous(),
        )
        return gw.sum(0), gu.sum(0), gk, gv, None, None, None, None
