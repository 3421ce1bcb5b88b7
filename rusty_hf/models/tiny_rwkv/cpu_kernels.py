"""Compiled CPU kernels: WKV (the same math as `wkv_torch.WKVFunction`) and few-row linear layers.

- WKV: the pure-PyTorch operator spends most of its time dispatching ~20 small ops per time step.
  This kernel walks time once per block of 64 channels (the channel loop vectorised), runs the
  blocks in parallel on ATen's thread pool, and recomputes the forward states inside the backward
  instead of storing them.
- `packed_linear`: `x @ W^T` for inputs of at most `PACKED_LINEAR_MAX_ROWS` rows, which is what a
  decoding step is. MKL runs such skinny products on one core and, at 16 rows, at ~40% of that
  core's FMA peak; here W is repacked once into panels of 16 output columns, each a contiguous
  stream, the panels are split across the cores, and a register tile of up to 6 rows x 16 columns
  accumulates in fp32. Batch 1 reads the weights at the machine's two-core bandwidth instead of
  one core's; batch 16 runs at 60-65% of both cores' FMA peak with warm caches and ~50% while the
  weights stream from memory (see benchmarks/model_speed.py and the README).

Both are compiled with -march=native for the machine that builds them, once per Python environment
and torch build, with `torch.utils.cpp_extension.load_inline` (needs a C++ compiler and ninja), into
`kernel_cache.build_directory` (~/.cache/rusty_hf/kernels/...; venvs do not evict each other, a lock
left by an interrupted build is cleared). `recipes/install.sh` builds them (`python3 -m
rusty_hf.inference.warmup`); otherwise the first use does, with a message. They are optional:
`load_kernel()` returns None when the build is impossible or `RUSTY_CPU_KERNELS=off`, and the callers
then use PyTorch's own operators.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import threading
import time

import torch

from .kernel_cache import build_directory, is_built, locked_build

logger = logging.getLogger(__name__)

_SOURCE = r"""
#include <torch/extension.h>
#include <ATen/Parallel.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <utility>
#include <vector>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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

// Blocks per task: a decoding step (a few time steps) is too little work to wake a second thread for.
static inline int64_t grain(int64_t Tn) { return std::max<int64_t>(1, 1024 / (Tn * CB)); }

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
        at::parallel_for(0, B * nblocks, grain(Tn), [&](int64_t begin, int64_t end) {
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
        at::parallel_for(0, B * nblocks, grain(Tn), [&](int64_t begin, int64_t end) {
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

// ---- Few-row linear layers: y = x W^T, x (M, K) with M small, W (N, K) repacked into panels. ----
// GCC/Clang vector extensions: AVX2 registers under -march=native on x86, pairs of NEON ones on ARM.
typedef float f32x8 __attribute__((vector_size(32)));
typedef float f32x8u __attribute__((vector_size(32), aligned(4)));  // the same, at any float alignment
static inline f32x8 load8(const float* p) { return *reinterpret_cast<const f32x8u*>(p); }
static inline void store8(float* p, f32x8 v) { *reinterpret_cast<f32x8u*>(p) = v; }
constexpr int64_t NR = 16;  // output columns per panel: two vectors

// Zeroed float32 memory for a packed weight. From 2 MiB on, on Linux, it is 2 MiB-aligned and
// asks for transparent huge pages (MADV_HUGEPAGE, which the common `madvise` THP setting honours):
// a decoding step streams every weight once, and with 4 KiB pages each 4 KiB of it is a TLB miss.
// Same-process A/B on the 2-core EPYC: generation ~6-8% faster at batch 1 and at batch 16. The
// weights are packed once, so the one-time cost of assembling huge pages is paid outside the loop.
static torch::Tensor zeroed_weight_memory(at::IntArrayRef sizes, const torch::TensorOptions& options) {
    size_t bytes = sizeof(float);
    for (const auto s : sizes) bytes *= size_t(s);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr size_t huge = size_t(2) << 20;
    if (bytes >= huge) {
        const size_t capacity = (bytes + huge - 1) / huge * huge;
        void* mem = std::aligned_alloc(huge, capacity);
        TORCH_CHECK(mem != nullptr, "out of memory packing a ", bytes, "-byte weight");
        madvise(mem, capacity, MADV_HUGEPAGE);  // a hint: on failure the pages are simply 4 KiB
        std::memset(mem, 0, bytes);
        return torch::from_blob(mem, sizes, [](void* q) { std::free(q); }, options);
    }
#endif
    return torch::zeros(sizes, options);
}

// W (N, K) -> (ceil(N / NR), K, NR): panel j holds columns [j*NR, j*NR + NR) of W^T, zero-padded.
torch::Tensor pack_linear_weight(torch::Tensor w) {
    TORCH_CHECK(w.dim() == 2 && w.scalar_type() == at::kFloat && w.is_contiguous(), "pack: W must be (N, K) float32");
    const int64_t N = w.size(0), K = w.size(1), P = (N + NR - 1) / NR;
    auto packed = zeroed_weight_memory({P, K, NR}, w.options());
    const float* wp = w.data_ptr<float>();
    float* pp = packed.data_ptr<float>();
    at::parallel_for(0, P, 1, [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p)
            for (int64_t j = 0; j < NR && p * NR + j < N; ++j)
                for (int64_t k = 0; k < K; ++k) pp[(p * K + k) * NR + j] = wp[(p * NR + j) * K + k];
    });
    return packed;
}

static inline void store_tile_row(float* y, f32x8 lo, f32x8 hi, int64_t ncols) {
    if (ncols == NR) {
        store8(y, lo);
        store8(y + 8, hi);
    } else {
        for (int64_t j = 0; j < ncols; ++j) y[j] = j < 8 ? lo[j] : hi[j - 8];
    }
}

// An MR x NR tile of y: 2 * MR accumulators, the panel's two vectors and one broadcast per step.
// With a few rows (PREFETCH) the tile is compute-bound while the next panel has to come from
// memory, so the panel's tiles (`tiles` of them, this one number `tile`) together prefetch it, each
// a contiguous share at one cache line every `tiles` steps. Prefetching it all from the first tile,
// a line per step, issued misses faster than the core can hold them and stalled that tile (~15%
// slower at 16 rows, weights cold).
template <int MR, bool PREFETCH>
static inline void row_tile(const float* x, int64_t K, const float* panel, float* y, int64_t ldy, int64_t ncols,
                            int64_t tile, int64_t tiles) {
    f32x8 acc[MR][2];
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = f32x8{};
    const float* next = panel + (K + tile * K / tiles) * NR;
    int64_t countdown = 1;
    for (int64_t k = 0; k < K; ++k) {
        if (PREFETCH && --countdown == 0) {
            __builtin_prefetch(next);  // never faults, even past the end
            next += NR;
            countdown = tiles;
        }
        const f32x8 w0 = load8(panel + k * NR), w1 = load8(panel + k * NR + 8);
        for (int i = 0; i < MR; ++i) {
            const float xv = x[i * K + k];
            acc[i][0] += xv * w0;
            acc[i][1] += xv * w1;
        }
    }
    for (int i = 0; i < MR; ++i) store_tile_row(y + i * ldy, acc[i][0], acc[i][1], ncols);
}

// One row: a pure stream of the panel, which the hardware prefetcher follows. Four steps at a time
// go into independent accumulators, so the loads run ahead of the additions: with one chain of
// dependent FMAs the stream ran ~15-20% slower (batch-1 generation, benchmarks/model_speed.py).
static inline void row_stream(const float* x, int64_t K, const float* panel, float* y, int64_t ncols) {
    f32x8 acc[4][2] = {};
    int64_t k = 0;
    for (; k + 4 <= K; k += 4)
        for (int u = 0; u < 4; ++u) {
            acc[u][0] += x[k + u] * load8(panel + (k + u) * NR);
            acc[u][1] += x[k + u] * load8(panel + (k + u) * NR + 8);
        }
    for (; k < K; ++k) {
        acc[0][0] += x[k] * load8(panel + k * NR);
        acc[0][1] += x[k] * load8(panel + k * NR + 8);
    }
    store_tile_row(y, (acc[0][0] + acc[1][0]) + (acc[2][0] + acc[3][0]), (acc[0][1] + acc[1][1]) + (acc[2][1] + acc[3][1]),
                   ncols);
}

// One product y (M, N) = x (M, K) W^T, W packed by pack_linear_weight into P panels.
struct LinearJob {
    const float* x; int64_t M, K; const float* w; int64_t P, N; float* y;
};

// Up to this many row tiles (24 rows) the next panel is prefetched. With more, each panel is reused
// by enough tiles to hide the hardware prefetcher's latency, and the prefetch slowed a 256-row
// product (a prompt of 16 tokens in 16 rows) by ~30% (2-core EPYC, weights in or out of cache).
constexpr int64_t PREFETCH_MAX_TILES = 4;

// Every row tile of one panel of a job: columns [n0, n0 + nc) of y.
template <bool PREFETCH>
static inline void panel_tiles(const LinearJob& j, const float* panel, int64_t n0, int64_t nc) {
    const int64_t M = j.M, K = j.K, N = j.N, tiles = (M + 5) / 6;
    int64_t m = 0;
    for (; m + 6 <= M; m += 6) row_tile<6, PREFETCH>(j.x + m * K, K, panel, j.y + m * N + n0, N, nc, m / 6, tiles);
    const float* xr = j.x + m * K;
    float* yr = j.y + m * N + n0;
    const int64_t t = m / 6;
    switch (M - m) {
        case 5: row_tile<5, PREFETCH>(xr, K, panel, yr, N, nc, t, tiles); break;
        case 4: row_tile<4, PREFETCH>(xr, K, panel, yr, N, nc, t, tiles); break;
        case 3: row_tile<3, PREFETCH>(xr, K, panel, yr, N, nc, t, tiles); break;
        case 2: row_tile<2, PREFETCH>(xr, K, panel, yr, N, nc, t, tiles); break;
        case 1: row_tile<1, PREFETCH>(xr, K, panel, yr, N, nc, t, tiles); break;
        default: break;
    }
}

// Columns [p*NR, p*NR + NR) of one job's y.
static inline void linear_panel(const LinearJob& j, int64_t p) {
    const float* panel = j.w + p * j.K * NR;
    const int64_t n0 = p * NR, nc = std::min(NR, j.N - n0);
    if (j.M == 1) return row_stream(j.x, j.K, panel, j.y + n0, nc);
    if ((j.M + 5) / 6 <= PREFETCH_MAX_TILES) return panel_tiles<true>(j, panel, n0, nc);
    panel_tiles<false>(j, panel, n0, nc);
}

// Independent products in one parallel region: their panels are split across the threads as one
// list, so a block's k, v and r (or its two channel-mix inputs) cost one fork/join, not three.
// Each output is one thread's serial sum over K: the result does not depend on the thread count.
static void linear_rows(std::initializer_list<LinearJob> list) {
    const std::vector<LinearJob> jobs(list);
    int64_t total = 0;
    for (const auto& j : jobs) total += j.P;
    at::parallel_for(0, total, 4, [&](int64_t begin, int64_t end) {
        int64_t first = 0;
        for (const auto& j : jobs) {
            const int64_t lo = std::max(begin, first), hi = std::min(end, first + j.P);
            for (int64_t p = lo; p < hi; ++p) linear_panel(j, p - first);
            first += j.P;
        }
    });
}

static void check_packed(const torch::Tensor& packed, int64_t K, int64_t N) {
    TORCH_CHECK(packed.dim() == 3 && packed.size(1) == K && packed.size(2) == NR && packed.size(0) * NR >= N &&
                packed.scalar_type() == at::kFloat && packed.is_contiguous(), "packed weight does not fit the input");
}

torch::Tensor packed_linear(torch::Tensor x, torch::Tensor packed, int64_t N) {
    TORCH_CHECK(x.dim() == 2 && x.scalar_type() == at::kFloat && x.is_contiguous(), "x must be (M, K) float32");
    check_packed(packed, x.size(1), N);
    auto y = torch::empty({x.size(0), N}, x.options());
    linear_rows({{x.data_ptr<float>(), x.size(0), x.size(1), packed.data_ptr<float>(), packed.size(0), N, y.data_ptr<float>()}});
    return y;
}

// ---- One decoding step (one token per row) of a whole RWKV-4 block, in one call. ----
// The same math as TinyRWKVBlock.forward on a (B, 1, C) input without a mask: the module path
// costs ~40 dispatched ops per block, which at batch 1 is as long as the block's matmuls.

// y = LayerNorm(x) per row: two-pass mean and (biased) variance in float.
static void layer_norm_rows(const float* x, int64_t B, int64_t C, const float* g, const float* beta, float eps, float* y) {
    for (int64_t r = 0; r < B; ++r) {
        const float* xr = x + r * C;
        float* yr = y + r * C;
        float mean = 0, var = 0;
        _Pragma("omp simd reduction(+ : mean)")
        for (int64_t c = 0; c < C; ++c) mean += xr[c];
        mean /= C;
        _Pragma("omp simd reduction(+ : var)")
        for (int64_t c = 0; c < C; ++c) var += (xr[c] - mean) * (xr[c] - mean);
        const float rstd = 1.0f / std::sqrt(var / C + eps);
        _Pragma("omp simd")
        for (int64_t c = 0; c < C; ++c) yr[c] = (xr[c] - mean) * rstd * g[c] + beta[c];
    }
}

// out_j = prev + (h - prev) * mix_j (token-shift mixing), then prev <- h. Each mix has C entries;
// rows of prev are ls floats apart.
static void mix_rows(const float* h, float* prev, int64_t ls, int64_t B, int64_t C,
                     std::initializer_list<std::pair<const float*, float*>> mixes) {
    for (int64_t r = 0; r < B; ++r) {
        const float* hr = h + r * C;
        float* pr = prev + r * ls;
        for (const auto& [mix, out] : mixes) {
            float* o = out + r * C;
            _Pragma("omp simd")
            for (int64_t c = 0; c < C; ++c) o[c] = pr[c] + (hr[c] - pr[c]) * mix[c];
        }
        std::copy(hr, hr + C, pr);
    }
}

static inline float sigmoidf(float z) { return 1.0f / (1.0f + std::exp(-z)); }

// x (B, C): the residual stream, updated in place. state: this layer's (B, C) att_shift, a, b, p,
// ffn_shift, updated in place: views of the (B, n_layers, C) state, rows ls floats apart.
// params (18): ln1.{weight,bias}, ln2.{weight,bias}, time_decay, time_first, att.time_mix_{k,v,r},
// packed att.{key,value,receptance,output}, ffn.time_mix_{k,r}, packed ffn.{key,receptance,value}.
void decode_block(torch::Tensor x, std::vector<torch::Tensor> state, std::vector<torch::Tensor> params, double eps1,
                  double eps2) {
    TORCH_CHECK(x.dim() == 2 && x.scalar_type() == at::kFloat && x.is_contiguous(), "x must be (B, C) float32");
    TORCH_CHECK(state.size() == 5 && params.size() == 18, "decode_block: 5 state tensors and 18 parameters");
    const int64_t B = x.size(0), C = x.size(1), F = params[17].size(1);
    const int64_t ls = state[0].stride(0);
    for (auto& t : state)
        TORCH_CHECK(t.dim() == 2 && t.size(0) == B && t.size(1) == C && t.stride(1) == 1 && t.stride(0) == ls &&
                    t.scalar_type() == at::kFloat, "decode_block: state views must be (B, C) float32 with unit channel stride");
    for (auto& t : params)
        TORCH_CHECK(t.is_contiguous() && t.scalar_type() == at::kFloat, "decode_block: float32 parameters");
    for (int i : {0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 14}) TORCH_CHECK(params[i].numel() == C, "decode_block: vector shapes");
    for (int i : {9, 10, 11, 12, 16}) check_packed(params[i], C, C);
    check_packed(params[15], C, F);
    check_packed(params[17], F, C);
    auto f = [&](int i) { return params[i].data_ptr<float>(); };
    // y (B, N) = in (B, K) W_i^T
    auto job = [&](const float* in, int64_t K, int i, int64_t N, float* y) {
        return LinearJob{in, B, K, f(i), params[i].size(0), N, y};
    };
    auto work = torch::empty({6 * B * C + B * F}, x.options());
    float* h = work.data_ptr<float>();
    float *m1 = h + B * C, *m2 = m1 + B * C, *m3 = m2 + B * C, *o1 = m3 + B * C, *o2 = o1 + B * C, *wide = o2 + B * C;
    float* xs = x.data_ptr<float>();
    float *shift_att = state[0].data_ptr<float>(), *a = state[1].data_ptr<float>(), *b = state[2].data_ptr<float>(),
          *p = state[3].data_ptr<float>(), *shift_ffn = state[4].data_ptr<float>();

    // time-mix: x += W_o (sigmoid(r) * wkv(k, v))
    layer_norm_rows(xs, B, C, f(0), f(1), float(eps1), h);
    mix_rows(h, shift_att, ls, B, C, {{f(6), m1}, {f(7), m2}, {f(8), m3}});
    linear_rows({job(m1, C, 9, C, o1), job(m2, C, 10, C, o2), job(m3, C, 11, C, h)});  // k, v, r
    const float *decay = f(4), *first = f(5);
    for (int64_t r = 0; r < B; ++r) {
        const float *kr = o1 + r * C, *vr = o2 + r * C, *rr = h + r * C;
        float *ar = a + r * ls, *br = b + r * ls, *pr = p + r * ls, *out = m1 + r * C;
        _Pragma("omp simd")  // the buffers do not overlap: without this the loop stays scalar (~35 ns a channel)
        for (int64_t c = 0; c < C; ++c) {
            float m, e2, den;
            const float y = output(first[c], kr[c], vr[c], ar[c], br[c], pr[c], m, e2, den);
            advance(-std::exp(decay[c]), kr[c], vr[c], ar[c], br[c], pr[c]);
            out[c] = sigmoidf(rr[c]) * y;
        }
    }
    linear_rows({job(m1, C, 12, C, o1)});
    for (int64_t i = 0; i < B * C; ++i) xs[i] += o1[i];

    // channel-mix: x += sigmoid(W_r xr) * W_v relu(W_k xk)^2
    layer_norm_rows(xs, B, C, f(2), f(3), float(eps2), h);
    mix_rows(h, shift_ffn, ls, B, C, {{f(13), m1}, {f(14), m2}});
    linear_rows({job(m1, C, 15, F, wide), job(m2, C, 16, C, o1)});
    for (int64_t i = 0; i < B * F; ++i) wide[i] = wide[i] > 0 ? wide[i] * wide[i] : 0.0f;
    linear_rows({job(wide, F, 17, C, o2)});
    for (int64_t i = 0; i < B * C; ++i) xs[i] += sigmoidf(o1[i]) * o2[i];
}

// ---- Training: the cross-entropy of the head and the channel-mix's relu^2, one pass each way. ----
// PyTorch's cross-entropy writes the whole log-softmax (N x vocab, ~100 MB at 1024 tokens x 24,000)
// and its backward fills, scatters and re-reads it; here the forward keeps one log-sum-exp per row
// and the backward writes the gradient in one pass. Rows run in parallel, each in one thread.

// An uninitialised float32 tensor like t, for the gradient of the logits: ~100 MB at 1024 tokens x
// 24,000, written once per training step. A fresh mapping of that size is faulted in 4 KiB at a
// time (~85 ms per 200 MB here, more than the kernel's own work), so one freed buffer is kept and
// handed to the next request that fits in it: every step after the first writes into memory
// that is already mapped. The slot is only filled by the deleter, i.e. once nothing refers to the
// buffer any more, and holds the latest one freed. Transparent huge pages were tried instead: their
// compaction stalls made the same call vary from 7 to 290 ms.
static std::mutex spare_lock;
static void* spare = nullptr;
static size_t spare_bytes = 0;

static void release_buffer(void* p, size_t bytes) {  // the latest freed buffer is the one kept
    void* old;
    {
        std::lock_guard<std::mutex> guard(spare_lock);
        old = spare;
        spare = p;
        spare_bytes = bytes;
    }
    std::free(old);
}

static torch::Tensor empty_float_like(const torch::Tensor& t) {
    const size_t bytes = t.numel() * sizeof(float);
    if (bytes < (size_t(8) << 20)) return torch::empty(t.sizes(), t.options().dtype(at::kFloat));
    void* p = nullptr;
    size_t capacity = (bytes + 63) / 64 * 64;
    {
        std::lock_guard<std::mutex> guard(spare_lock);
        if (spare != nullptr && spare_bytes >= bytes) {  // a longer batch's buffer serves a shorter one
            p = spare;
            capacity = spare_bytes;
            spare = nullptr;
        }
    }
    if (p == nullptr) p = std::aligned_alloc(64, capacity);
    TORCH_CHECK(p != nullptr, "out of memory for a ", bytes, "-byte gradient");
    return torch::from_blob(p, t.sizes(), [capacity](void* q) { release_buffer(q, capacity); }, t.options().dtype(at::kFloat));
}

// Per row: lse = log sum exp(x), loss = lse - x[target] (0 where target == ignore_index).
std::vector<torch::Tensor> cross_entropy_forward(torch::Tensor logits, torch::Tensor target, int64_t ignore_index) {
    TORCH_CHECK(logits.dim() == 2 && logits.scalar_type() == at::kFloat && logits.is_contiguous(), "logits (N, V) float32");
    TORCH_CHECK(target.dim() == 1 && target.scalar_type() == at::kLong && target.size(0) == logits.size(0), "target (N,) int64");
    const int64_t N = logits.size(0), V = logits.size(1);
    auto lse = torch::empty({N}, logits.options()), loss = torch::empty({N}, logits.options());
    const auto tc = target.contiguous();  // held: a temporary's pointer would dangle
    const float* xp = logits.data_ptr<float>();
    const int64_t* tp = tc.data_ptr<int64_t>();
    float *lp = lse.data_ptr<float>(), *op = loss.data_ptr<float>();
    at::parallel_for(0, N, 8, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const float* x = xp + i * V;
            float mx = x[0];
            for (int64_t v = 1; v < V; ++v) mx = x[v] > mx ? x[v] : mx;
            float sum = 0;
            _Pragma("omp simd reduction(+ : sum)")
            for (int64_t v = 0; v < V; ++v) sum += std::exp(x[v] - mx);
            lp[i] = mx + std::log(sum);
            op[i] = tp[i] == ignore_index ? 0.0f : lp[i] - x[tp[i]];
        }
    });
    return {lse, loss};
}

// d(sum_i g_i loss_i)/dx = g_i (softmax(x_i) - onehot(target_i)); rows with target == ignore_index get 0.
torch::Tensor cross_entropy_backward(torch::Tensor logits, torch::Tensor target, torch::Tensor lse, torch::Tensor grad,
                                     int64_t ignore_index) {
    TORCH_CHECK(logits.is_contiguous() && grad.numel() == logits.size(0) && lse.numel() == logits.size(0), "cross_entropy_backward");
    const int64_t N = logits.size(0), V = logits.size(1);
    auto out = empty_float_like(logits);
    const auto tc = target.contiguous(), gc = grad.contiguous().to(at::kFloat);
    const float *xp = logits.data_ptr<float>(), *lp = lse.data_ptr<float>(), *gp = gc.data_ptr<float>();
    const int64_t* tp = tc.data_ptr<int64_t>();
    float* op = out.data_ptr<float>();
    at::parallel_for(0, N, 8, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const float* x = xp + i * V;
            float* o = op + i * V;
            if (tp[i] == ignore_index) {
                std::fill(o, o + V, 0.0f);
                continue;
            }
            const float g = gp[i], l = lp[i];
            _Pragma("omp simd")
            for (int64_t v = 0; v < V; ++v) o[v] = g * std::exp(x[v] - l);
            o[tp[i]] -= g;
        }
    });
    return out;
}

// relu(x)^2 and its gradient 2 relu(x) g, each one pass (autograd's version takes four kernels).
torch::Tensor relu_square_forward(torch::Tensor x) {
    TORCH_CHECK(x.scalar_type() == at::kFloat && x.is_contiguous(), "relu_square: contiguous float32");
    auto y = torch::empty_like(x);
    const float* xp = x.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    at::parallel_for(0, x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        _Pragma("omp simd")
        for (int64_t i = begin; i < end; ++i) yp[i] = xp[i] > 0 ? xp[i] * xp[i] : 0.0f;
    });
    return y;
}

torch::Tensor relu_square_backward(torch::Tensor x, torch::Tensor g) {
    TORCH_CHECK(x.scalar_type() == at::kFloat && x.is_contiguous() && g.sizes() == x.sizes(), "relu_square_backward");
    auto gc = g.contiguous().to(at::kFloat);
    auto out = torch::empty_like(x);
    const float *xp = x.data_ptr<float>(), *gp = gc.data_ptr<float>();
    float* op = out.data_ptr<float>();
    at::parallel_for(0, x.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
        // restrict-qualified chunk pointers: with the shared ones GCC kept this loop scalar despite the
        // pragma (g read only where x > 0), 4.4 ms against 0.5 ms for a (4, 256, 2048) tensor
        const float* __restrict xs = xp + begin;
        const float* __restrict gs = gp + begin;
        float* __restrict os = op + begin;
        const int64_t n = end - begin;
        _Pragma("omp simd")
        for (int64_t i = 0; i < n; ++i) { const float xv = xs[i]; os[i] = xv > 0.0f ? 2.0f * xv * gs[i] : 0.0f; }
    });
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("forward", &wkv_forward, "WKV forward (CPU)");
    m.def("backward", &wkv_backward, "WKV backward (CPU)");
    m.def("pack_linear_weight", &pack_linear_weight, "repack a Linear weight into column panels");
    m.def("packed_linear", &packed_linear, "x @ W^T for few-row x, W packed");
    m.def("decode_block", &decode_block, "one decoding step of an RWKV-4 block, in place");
    m.def("cross_entropy_forward", &cross_entropy_forward, "per-row log-sum-exp and loss");
    m.def("cross_entropy_backward", &cross_entropy_backward, "per-row (softmax - onehot) * g");
    m.def("relu_square_forward", &relu_square_forward, "relu(x)^2");
    m.def("relu_square_backward", &relu_square_backward, "2 relu(x) g");
}
"""

_lock = threading.Lock()
_kernel = None
_tried = False

# Up to this many rows the panels match or beat MKL's sgemm on the 2-core EPYC of
# benchmarks/model_speed.py (the model's Linear layers: 139 vs 113 GFLOP/s at 256 rows, 129 vs 129
# at 512; at 1024 rows MKL is ahead, 128 vs 138), so prompts of a few hundred tokens prefill
# through them too.
PACKED_LINEAR_MAX_ROWS = 512


def kernels_disabled() -> bool:
    """Whether RUSTY_CPU_KERNELS=off (or the older RUSTY_WKV_KERNEL=python) asks for PyTorch's operators."""
    return (
        os.environ.get("RUSTY_CPU_KERNELS", "auto").lower() in ("0", "off", "false", "no")
        or os.environ.get("RUSTY_WKV_KERNEL", "auto").lower() == "python"  # the older switch, still honoured
    )


def _build_flags() -> tuple[list[str], list[str]]:
    """Compiler and linker flags. at::parallel_for is inline: under an OpenMP build of torch it only
    runs in parallel when this module is compiled with -fopenmp (the runtime is torch's own libgomp,
    already loaded under the same soname, so there is one thread pool)."""
    cflags, ldflags = ["-O3", "-march=native", "-ffast-math", "-fopenmp-simd"], []
    if "OpenMP" in torch.__config__.parallel_info().split("ATen parallel backend:", 1)[-1].splitlines()[0]:
        cflags.append("-fopenmp")
        ldflags.append("-fopenmp")
    return cflags, ldflags


def load_kernel():
    """The compiled module, building it once per process; None when unavailable (reason logged once).

    Set `RUSTY_CPU_KERNELS=off` (or the older `RUSTY_WKV_KERNEL=python`) to use PyTorch's operators.
    """
    global _kernel, _tried
    if _tried:
        return _kernel
    with _lock:
        if _tried:
            return _kernel
        _tried = True
        if kernels_disabled():
            return None
        if shutil.which(os.environ.get("CXX", "c++")) is None:
            logger.warning("rusty_hf: no C++ compiler found; using PyTorch's CPU operators for WKV and decoding (slower)")
            return None
        try:
            _kernel = _build()
        except Exception as err:  # any build failure: fall back, loudly once
            logger.warning("rusty_hf: could not build the C++ CPU kernels (%s); using PyTorch's operators", err)
            _kernel = None
        return _kernel


def kernel_name() -> str:
    """The extension's name: a changed source or flag set is a new name, so it builds anew."""
    cflags, ldflags = _build_flags()
    return f"rusty_cpu_kernels_{hashlib.sha256(chr(0).join([_SOURCE, *cflags, *ldflags]).encode()).hexdigest()[:12]}"


def kernel_is_built() -> bool:
    """Whether this environment already has the compiled kernels on disk (loading them is then quick)."""
    return is_built(build_directory(kernel_name()), kernel_name())


def _build():
    from torch.utils.cpp_extension import load_inline

    cflags, ldflags = _build_flags()
    name, folder = kernel_name(), build_directory(kernel_name())
    fresh = not is_built(folder, name)
    if fresh:
        logger.warning("rusty_hf: compiling the C++ CPU kernels for this Python environment (once; about a minute) "
                       "into %s", folder)
    start = time.perf_counter()
    module = locked_build(folder, lambda d: load_inline(
        name=name, cpp_sources=[_SOURCE], extra_cflags=cflags, extra_ldflags=ldflags, build_directory=str(d), verbose=False,
    ))
    if fresh:
        logger.warning("rusty_hf: compiled the C++ CPU kernels in %.0f s; later runs in this environment reuse them",
                       time.perf_counter() - start)
    return module


def packed_linear_weight(weight: torch.Tensor) -> torch.Tensor | None:
    """`weight` (N, K) float32 repacked for `packed_linear`; None without the compiled kernels."""
    kernel = load_kernel()
    return None if kernel is None else kernel.pack_linear_weight(weight.detach().contiguous())


def packed_linear(x: torch.Tensor, packed: torch.Tensor, out_features: int) -> torch.Tensor:
    """`x @ W^T` for x (M, K) float32 with M <= PACKED_LINEAR_MAX_ROWS, from `packed_linear_weight(W)`."""
    return load_kernel().packed_linear(x.contiguous(), packed, out_features)


def wkv_cpu_forward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
    a0: torch.Tensor, b0: torch.Tensor, p0: torch.Tensor, mask: torch.Tensor | None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(y, a, b, p) through the compiled kernel, without autograd: k, v (B, T, C) contiguous."""
    a, b, p = a0.clone(), b0.clone(), p0.clone()
    y = load_kernel().forward(w.contiguous(), u.contiguous(), k, v, a, b, p, _mask_arg(mask))
    return y, a, b, p


def wkv_cpu_backward(
    w: torch.Tensor, u: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
    a0: torch.Tensor, b0: torch.Tensor, p0: torch.Tensor, mask: torch.Tensor | None, gy: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """(gw, gu, gk, gv); the kernel recomputes the forward states from the incoming one."""
    gk, gv, gw, gu = load_kernel().backward(
        w.contiguous(), u.contiguous(), k, v, a0.contiguous(), b0.contiguous(), p0.contiguous(), _mask_arg(mask),
        gy.contiguous(),
    )
    return gw.sum(0), gu.sum(0), gk, gv


def _mask_arg(mask: torch.Tensor | None) -> torch.Tensor:
    return mask.bool().contiguous() if mask is not None else torch.empty(0, dtype=torch.bool)


class WKVCpuFunction(torch.autograd.Function):
    """WKV on CPU through the compiled kernel. Same inputs and outputs as `wkv_torch.WKVFunction`."""

    @staticmethod
    def forward(ctx, w, u, k, v, a0, b0, p0, mask):
        y, a, b, p = wkv_cpu_forward(w, u, k, v, a0, b0, p0, mask)
        ctx.save_for_backward(w, u, k, v, a0, b0, p0, mask)
        ctx.mark_non_differentiable(a, b, p)
        return y, a, b, p

    @staticmethod
    def backward(ctx, gy, *_state_grads):
        gw, gu, gk, gv = wkv_cpu_backward(*ctx.saved_tensors, gy)
        return gw, gu, gk, gv, None, None, None, None


def _use_torch_ops(x: torch.Tensor) -> bool:
    """Whether an op on `x` takes PyTorch's path: not float32 on CPU, no kernel, or being traced by
    torch.compile (dynamo cannot see into the kernel, and fuses PyTorch's elementwise ops itself)."""
    return torch.compiler.is_compiling() or x.device.type != "cpu" or x.dtype != torch.float32 or load_kernel() is None


class CrossEntropyRows(torch.autograd.Function):
    """Per-row cross-entropy of float32 logits (N, V) against targets (N,), 0 where ignored."""

    @staticmethod
    def forward(ctx, logits, target, ignore_index):
        lse, loss = load_kernel().cross_entropy_forward(logits, target, ignore_index)
        ctx.save_for_backward(logits, target, lse)
        ctx.ignore_index = ignore_index
        return loss

    @staticmethod
    def backward(ctx, grad):
        logits, target, lse = ctx.saved_tensors
        return load_kernel().cross_entropy_backward(logits, target, lse, grad, ctx.ignore_index), None, None


def cross_entropy(logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100, reduction: str = "mean") -> torch.Tensor:
    """`F.cross_entropy(logits, target, ignore_index=..., reduction=...)` for (N, V) and (N,) inputs;
    compiled for contiguous float32 CPU logits, PyTorch's operator otherwise (see `_use_torch_ops`)."""
    if _use_torch_ops(logits):
        return torch.nn.functional.cross_entropy(logits, target, ignore_index=ignore_index, reduction=reduction)
    target = target.long()
    real = target != ignore_index
    if bool(((target < 0) | (target >= logits.shape[1]))[real].any()):
        raise IndexError(f"cross_entropy: a target is outside [0, {logits.shape[1]}) and is not ignore_index")
    loss = CrossEntropyRows.apply(logits.contiguous(), target, ignore_index)
    if reduction == "none":
        return loss
    total = loss.sum()
    return total if reduction == "sum" else total / real.sum()


class ReluSquare(torch.autograd.Function):
    """relu(x)^2 for contiguous float32 CPU tensors."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return load_kernel().relu_square_forward(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return load_kernel().relu_square_backward(x, grad)


def relu_square(x: torch.Tensor) -> torch.Tensor:
    """`torch.square(torch.relu(x))`, compiled for float32 CPU tensors (see `_use_torch_ops`)."""
    if _use_torch_ops(x):
        return torch.square(torch.relu(x))
    return ReluSquare.apply(x.contiguous())
