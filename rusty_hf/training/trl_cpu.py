"""TRL's fused LM head on CPU: score only the labelled positions, and fold the logits with torch's own kernels.

TRL 1.16 patches every trained model with a chunked log-prob head (`trl.trainer.utils.add_fused_lm_head`).
Two of its choices cost a CPU a lot and buy it nothing:

- **Every position is scored.** With Triton (CUDA/XPU) TRL projects only the positions whose label is not
  -100; elsewhere it scores all of them, because on devices that compile per shape (Neuron) a varying count of
  valid positions would recompile each batch. A CPU compiles nothing: GRPO scores the whole prompt (hundreds of
  tokens) to use ~30 completion tokens, and SFT scores the system and user turns ``assistant_only_loss``
  masks out. TRL reads that decision from one name, ``trl.trainer.utils._use_triton``; `fused_head_on_cpu`
  rebinds it to answer True for CPU tensors too (the same tiles over fewer rows).
- **The tiles are folded by a per-op emulation of its Triton kernel** (`_forward_tile` / `_backward_tile`:
  an online log-sum-exp, masks and index compares over every tile, the projection recomputed in the backward).
  On a CPU the logits of the labelled positions fit in memory, and torch's fused ``log_softmax`` and three GEMMs
  do the same work in fewer passes. `CpuTokenLogProbs` is that: the same signature and outputs as TRL's
  ``ChunkedLogProbFunction`` (log-probs, entropy, ``log_sum_sq_probs``, mean logit, top-1), gradients for
  log-probs and entropy (GRPO's entropy bonus), fp32 logits under bf16 autocast as TRL's. `fused_head_on_cpu`
  rebinds ``trl.trainer.utils._ChunkedLogProbFunction`` to a dispatcher that sends CPU tensors here and the
  rest to TRL's function (so do a micro-batch with no labelled position and a DeepSpeed ZeRO-3 partitioned head,
  which TRL's backward gathers again). `benchmarks/cpu_parts.py` times both (1,100 labelled positions, 192 ->
  24,000: 2.6x on 2 cores).

Memory: the labelled positions' log-probabilities are kept for the backward, and their probabilities when the
entropy was asked for (N x V fp32 each, 105 MB for 1,100 positions of a 24K vocabulary); past `MAX_KEPT_LOGITS`
elements the function folds in token chunks and recomputes them in the backward, as TRL does. Each rebinding is a no-op when TRL no longer has the name, so an upgraded TRL degrades to its own
behaviour, never to an error. Tests hold log-probs, entropy and gradients to TRL's own path.
"""

from __future__ import annotations

import functools
import logging

import torch
import torch.nn.functional as F

logger = logging.getLogger(__name__)

MAX_KEPT_LOGITS = 1 << 28  # fp32 elements (1 GiB) kept for the backward; beyond, token chunks are recomputed


def _logits(hidden, weight, bias, dtype, temperature, softcap, logit_scale):
    """fp32 logits as TRL transforms them (scale, softcap, temperature), and tanh of the softcap for its gradient."""
    z = F.linear(hidden.to(dtype), weight.to(dtype), None if bias is None else bias.to(dtype)).float()
    if logit_scale != 1.0:
        z = z * logit_scale
    tanh = None
    if softcap is not None:
        tanh = torch.tanh(z / softcap)
        z = softcap * tanh
    if temperature != 1.0:
        z = z / temperature
    return z, tanh


def _top1(z: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Whether the target is ``argmax`` (the first maximum), as TRL counts it, in one max pass: the target's
    logit against the largest of the others (argmax, slower on CPU, only for rows where the two are equal)."""
    index = targets[:, None]
    target = z.gather(-1, index)
    z.scatter_(-1, index, float("-inf"))
    others = z.amax(-1, keepdim=True)
    z.scatter_(-1, index, target)  # restored exactly
    top = target > others
    rows = (target == others).squeeze(-1).nonzero().squeeze(-1)
    if rows.numel():  # a tie: the target counts only as the first maximum
        top[rows] = (z[rows].argmax(-1) == targets[rows])[:, None]
    return top.squeeze(-1)


class CpuTokenLogProbs(torch.autograd.Function):
    """TRL's ``ChunkedLogProbFunction`` for CPU tensors: the same arguments and outputs, torch's fused kernels."""

    @staticmethod
    def forward(ctx, hidden, weight, bias, targets, temperature, chunk_size, final_logit_softcapping=None,
                logit_scale=1.0, outputs=("entropy", "log_sum_sq_probs", "mean_logits", "is_top1")):
        ctx.set_materialize_grads(False)
        dtype = torch.get_autocast_dtype("cpu") if torch.is_autocast_enabled("cpu") else hidden.dtype
        n, vocab = hidden.shape[0], weight.shape[0]
        rows = n if n * vocab <= MAX_KEPT_LOGITS else max(1, MAX_KEPT_LOGITS // vocab)
        transform = (dtype, temperature, final_logit_softcapping, logit_scale)
        result = {key: [] for key in ("log_probs", "entropy", "log_sum_sq_probs", "mean_logits", "is_top1")}
        kept = []  # one chunk: its log-probabilities (and probabilities, when computed) for the backward
        with torch.autocast("cpu", enabled=False):  # the GEMM in `dtype` (autocast's), everything after it in fp32
            for start in range(0, n, rows):
                z, tanh = _logits(hidden[start:start + rows], weight, bias, *transform)
                t = targets[start:start + rows]
                if "mean_logits" in outputs:
                    result["mean_logits"].append(z.mean(-1))
                if "is_top1" in outputs:
                    result["is_top1"].append(_top1(z, t))
                log_p = torch.log_softmax(z, -1)
                del z
                result["log_probs"].append(log_p.gather(-1, t[:, None]).squeeze(-1))
                p = None
                if "entropy" in outputs or "log_sum_sq_probs" in outputs:
                    p = log_p.exp()
                    if "log_sum_sq_probs" in outputs:
                        result["log_sum_sq_probs"].append(torch.linalg.vecdot(p, p).log())
                    if "entropy" in outputs:
                        result["entropy"].append(-torch.linalg.vecdot(p, log_p))
                if rows == n:
                    kept = [log_p, p, tanh]
        cat = {key: torch.cat(parts) if parts else None for key, parts in result.items()}
        entropy = cat["entropy"]
        ctx.save_for_backward(hidden, weight, bias, targets, entropy, *kept)
        ctx.transform, ctx.rows = transform, rows
        extras = [cat[key] for key in ("log_sum_sq_probs", "mean_logits", "is_top1")]
        ctx.mark_non_differentiable(*(x for x in extras if x is not None))
        return cat["log_probs"], entropy, *extras

    @staticmethod
    def backward(ctx, grad_log_probs, grad_entropy, *_):
        hidden, weight, bias, targets, entropy, *kept = ctx.saved_tensors
        dtype, temperature, _, logit_scale = ctx.transform  # the softcap reaches the backward as tanh
        need_hidden, need_weight, need_bias = ctx.needs_input_grad[:3]
        n = hidden.shape[0]
        w = weight.to(dtype)
        hidden_parts: list[torch.Tensor] = []
        grad_weight = grad_bias = None  # running sums over the token chunks
        with torch.autocast("cpu", enabled=False):
            for start in range(0, n, ctx.rows):
                stop = min(start + ctx.rows, n)
                if kept:
                    log_p, p, tanh = kept
                else:
                    z, tanh = _logits(hidden[start:stop], weight, bias, *ctx.transform)
                    log_p, p = torch.log_softmax(z, -1), None
                    del z
                p = log_p.exp() if p is None else p  # a saved p is read, never written
                grad = None
                if grad_log_probs is not None:  # d log p_t / dz_j = 1[j = t] - p_j
                    g = grad_log_probs[start:stop, None].float()
                    grad = p.mul(-g).scatter_add_(1, targets[start:stop, None], g)
                if grad_entropy is not None:  # dH/dz_j = -p_j (log p_j + H)
                    term = (log_p + entropy[start:stop, None]).mul_(p).mul_(-grad_entropy[start:stop, None].float())
                    grad = term if grad is None else grad.add_(term)
                if grad is None:
                    grad = torch.zeros_like(p)
                if tanh is not None:
                    grad.mul_(1 - tanh * tanh)
                if logit_scale / temperature != 1.0:
                    grad.mul_(logit_scale / temperature)
                grad = grad.to(dtype)
                if need_hidden:
                    hidden_parts.append(grad @ w)
                if need_weight:
                    chunk = grad.t() @ hidden[start:stop].to(dtype)
                    grad_weight = chunk if grad_weight is None else grad_weight.add_(chunk)
                if need_bias and bias is not None:
                    chunk = grad.sum(0, dtype=torch.float32)
                    grad_bias = chunk if grad_bias is None else grad_bias.add_(chunk)
        grad_hidden = torch.cat(hidden_parts).to(hidden.dtype) if hidden_parts else None
        return (grad_hidden, None if grad_weight is None else grad_weight.to(weight.dtype),
                None if grad_bias is None else grad_bias.to(bias.dtype), None, None, None, None, None, None)


class _OnCpu:
    """Stands in for ``ChunkedLogProbFunction`` in ``trl.trainer.utils``: CPU tensors here, the rest to TRL."""

    _rusty_cpu_head = True

    def __init__(self, original) -> None:
        self.original = original

    def apply(self, hidden, weight, *args):
        # TRL's own: off CPU, an all-masked micro-batch (no rows), and DeepSpeed ZeRO-3's partitioned head (TRL's
        # backward gathers it again; ours would read the empty partition)
        if hidden.device.type == "cpu" and hidden.shape[0] > 0 and not hasattr(weight, "ds_id"):
            return CpuTokenLogProbs.apply(hidden, weight, *args)
        return self.original.apply(hidden, weight, *args)


def fused_head_on_cpu() -> bool:
    """Make TRL's fused LM head compact and fold with torch's kernels on CPU; returns whether both are in effect."""
    try:
        import trl.trainer.utils as trl_utils
    except ImportError:
        return False
    done = True
    original = getattr(trl_utils, "_use_triton", None)
    if original is None:
        logger.info("TRL has no trainer.utils._use_triton any more; its fused LM head scores every position on CPU")
        done = False
    elif not getattr(original, "_rusty_compacts_cpu", False):
        @functools.wraps(original)
        def compact_on_cpu(device: torch.device) -> bool:
            return torch.device(device).type == "cpu" or original(device)

        compact_on_cpu._rusty_compacts_cpu = True  # type: ignore[attr-defined]
        trl_utils._use_triton = compact_on_cpu
    function = getattr(trl_utils, "_ChunkedLogProbFunction", None)
    if function is None:
        logger.info("TRL has no trainer.utils._ChunkedLogProbFunction any more; its own CPU fold is used")
        done = False
    elif not getattr(function, "_rusty_cpu_head", False):
        trl_utils._ChunkedLogProbFunction = _OnCpu(function)
    return done
