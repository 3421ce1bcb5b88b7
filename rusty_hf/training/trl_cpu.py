"""Make TRL's fused LM head score only the labelled positions on CPU, as it already does on GPUs.

TRL 1.16 patches every trained model with a chunked log-prob head (`trl.trainer.utils.add_fused_lm_head`).
With Triton (CUDA/XPU) it projects only the positions whose label is not -100; elsewhere it scores
*every* position, because on devices that compile per shape (Neuron) a varying count of valid positions
would recompile each batch. A CPU compiles nothing, so there that choice only costs time: GRPO scores
the whole prompt (hundreds of tokens) to use ~30 completion tokens, and SFT scores the system and user
turns that ``assistant_only_loss`` masks out. Measured on the tiny recipes (2 CPU cores): TRL's head is
~75% of a step.

TRL takes that decision in one place: the name ``_use_triton`` that ``trl.trainer.utils`` imported
from its kernels, read once per forward (``compact = _use_triton(device)``); the kernels keep their own
reference, so tiles are still computed by the torch fallback. `compact_fused_head_on_cpu` rebinds that
one name to also answer True for CPU. Results are identical (the same tiles over fewer rows; a test
checks log-probs and gradients against the uncompacted path). It is a no-op when TRL no longer has that
name, so an upgraded TRL degrades to its own behaviour, never to an error.
"""

from __future__ import annotations

import functools
import logging

import torch

logger = logging.getLogger(__name__)


def compact_fused_head_on_cpu() -> bool:
    """Rebind TRL's compaction switch so CPU tensors are compacted too; returns whether it is in effect."""
    try:
        import trl.trainer.utils as trl_utils
    except ImportError:
        return False
    original = getattr(trl_utils, "_use_triton", None)
    if original is None:
        logger.info("TRL has no trainer.utils._use_triton any more; its fused LM head is used unchanged")
        return False
    if getattr(original, "_rusty_compacts_cpu", False):
        return True

    @functools.wraps(original)
    def compact_on_cpu(device: torch.device) -> bool:
        return torch.device(device).type == "cpu" or original(device)

    compact_on_cpu._rusty_compacts_cpu = True  # type: ignore[attr-defined]
    trl_utils._use_triton = compact_on_cpu
    return True
