"""Categorical sampling for `generate` on CPU: one uniform number per row, not one exponential per token.

transformers' sampling step draws the next token with ``torch.multinomial(probs, num_samples=1)``. On CPU torch
draws that as ``argmax(p / E)`` with an exponential ``E`` for each of the V entries, and its exponential
generator is not vectorised: 10.8 ms for 16 rows of a 24,000-token vocabulary on a 2-core VM, more than the
whole decoding step of the tiny model (GRPO's rollouts spent ~70% of their time there). Inverse-CDF sampling (a
running sum per row, one uniform number, a binary search) draws from the same distribution in 1-3 ms
(`benchmarks/cpu_parts.py`: the sampling step and the fused head, torch's and TRL's against ours).

`torch.multinomial` is wrapped once, the first time `generate` runs on CPU; the wrapper answers with
`inverse_cdf_sample` only inside this thread's `decoding_session` (which `TinyRWKVForCausalLM.generate` holds)
and only for the call transformers makes (a 2-D CPU floating tensor, ``num_samples=1``, no ``out``); every
other call, in any thread, goes to torch's own function unchanged. ``RUSTY_CPU_SAMPLING=off`` in the environment
(read at each call) leaves every draw to torch. Rows torch would refuse (negative, NaN or
infinite entries, a zero sum) are handed to torch, so its error is raised. For a given seed the draws differ
from torch's (the random stream is used differently); the distribution is the same (a test counts it).

Imports only torch and modules of this folder (remote code).
"""

from __future__ import annotations

import functools
import os

import torch

from .inference_cache import session_cache


def inverse_cdf_sample(probs: torch.Tensor, generator: torch.Generator | None = None, with_total: bool = False):
    """One index per row of ``probs`` (rows of non-negative weights, any scale), drawn with probability
    proportional to its weight; a ``(rows, 1)`` long tensor, as ``torch.multinomial(probs, 1)`` returns
    (and each row's total weight, with ``with_total``)."""
    cdf = probs.to(torch.float64).cumsum(-1)  # float64: 24K terms summed without drift
    total = cdf[:, -1:]
    u = torch.rand(total.shape, dtype=torch.float64, device=probs.device, generator=generator) * total
    index = torch.searchsorted(cdf, u, right=True).clamp_(max=probs.shape[-1] - 1)  # first cdf > u
    return (index, total) if with_total else index


def _fast_case(probs, num_samples, replacement, generator, out) -> bool:
    return (out is None and num_samples == 1 and isinstance(probs, torch.Tensor) and probs.dim() == 2
            and probs.device.type == "cpu" and probs.is_floating_point() and probs.shape[-1] > 1
            and session_cache() is not None and os.environ.get("RUSTY_CPU_SAMPLING", "on") != "off")  # fmt: skip


def install() -> None:
    """Wrap ``torch.multinomial`` once (idempotent); outside a decoding session the wrapper is torch's function."""
    original = torch.multinomial
    if getattr(original, "_rusty_inverse_cdf", False):
        return

    @functools.wraps(original)
    def multinomial(probs, num_samples, replacement=False, *, generator=None, out=None):
        if _fast_case(probs, num_samples, replacement, generator, out):
            index, total = inverse_cdf_sample(probs, generator, with_total=True)
            # torch's refusals (a negative, NaN or infinite weight, a zero row) are raised by torch; so is the
            # draw clamped onto a zero weight (u * total rounded up to total), which is drawn again there
            valid = torch.isfinite(total).all() & (total > 0).all() & (probs.amin() >= 0)
            if bool(valid & (probs.gather(-1, index) > 0).all()):
                return index
        return original(probs, num_samples, replacement, generator=generator, out=out)

    multinomial._rusty_inverse_cdf = True  # type: ignore[attr-defined]
    multinomial._rusty_original = original  # type: ignore[attr-defined]
    torch.multinomial = multinomial
