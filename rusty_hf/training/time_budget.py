"""Train for a wall-clock budget: fit ``max_steps`` (and the LR schedule) to the minutes given, then stop.

    from rusty_hf.training.time_budget import TimeBudgetCallback
    trainer.add_callback(TimeBudgetCallback(max_minutes=12))

Every recipe takes ``max_train_minutes`` (YAML or CLI) and adds this callback; ``recipes/r2/pipeline.sh``
splits its ``BUDGET_MIN`` between the stages this way. ``max_steps`` stays the upper bound.

Two things happen:

* **Fit.** After ``calibration_steps`` optimizer steps the callback measures the seconds per step (from the
  end of step 1, so start-up and compilation don't count) and, when ``max_steps`` would not fit in what is
  left, lowers ``state.max_steps`` to the number that does. The LR schedule is stretched to match: the
  schedulers of ``transformers.optimization`` are ``LambdaLR``s over a ``functools.partial`` with a
  ``num_training_steps`` (or, for warmup-stable-decay, ``num_stable_steps``) argument, which is set to the
  new length, so a cosine run still decays to its floor at the end of the budget rather than being cut at
  its peak; the warmup shrinks in proportion, so a short budget still reaches the peak LR. Any other
  schedule is left as it is, with one logged line.
* **Stop.** At every step, when the next step would end past the budget (judged from the slowest recent
  step), training stops there; the recipe then saves its folder as usual. GRPO steps vary with the
  completion lengths, so the fit alone is not enough.

Under several processes every rank takes the same decision (the most cautious one, via an all-reduce), so
no rank waits at a collective that the others have left.
"""

from __future__ import annotations

import functools
import logging
import math
import time

import torch
import torch.distributed as dist
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

logger = logging.getLogger(__name__)

_STEP_ARGUMENTS = ("num_training_steps", "num_stable_steps")


def _agree(value: float, op: str) -> float:
    """``value`` reduced over every process (``op`` "min" or "max"); itself when not distributed."""
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() == 1:
        return value
    device = torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else torch.device("cpu")
    tensor = torch.tensor([value], dtype=torch.float64, device=device)
    dist.all_reduce(tensor, op=dist.ReduceOp.MIN if op == "min" else dist.ReduceOp.MAX)
    return float(tensor.item())


def stretch_schedule(lr_scheduler: object, old_steps: int, new_steps: int) -> bool:
    """Re-target a transformers LR schedule from ``old_steps`` to ``new_steps`` in place; False if it can't be.

    Works on the ``LambdaLR`` schedules of ``transformers.optimization`` (linear, cosine, polynomial,
    constant with warmup, warmup-stable-decay, ...), whose ``lr_lambdas`` are ``functools.partial`` objects
    naming their lengths. The warmup shrinks in proportion (at least one step), so a run cut from 50,000
    planned steps with 1,000 of warmup to 900 still reaches its peak LR, after 18 steps instead of never;
    warmup-stable-decay keeps its warmup and decay and shortens the stable phase.
    """
    lambdas = getattr(lr_scheduler, "lr_lambdas", None)
    if not lambdas or not all(isinstance(f, functools.partial) for f in lambdas):
        return False
    if not all(any(name in f.keywords for name in (*_STEP_ARGUMENTS, "num_warmup_steps")) for f in lambdas):
        return False
    shrink = old_steps - new_steps
    for i, f in enumerate(lambdas):
        keywords = dict(f.keywords)
        if "num_stable_steps" in keywords:  # warmup-stable-decay: the stable phase absorbs the change
            keywords["num_stable_steps"] = max(0, keywords["num_stable_steps"] - shrink)
        else:
            if "num_training_steps" in keywords:
                keywords["num_training_steps"] = new_steps
            warmup = keywords.get("num_warmup_steps") or 0
            if warmup > 0 and new_steps < old_steps:
                keywords["num_warmup_steps"] = min(warmup, max(1, round(warmup * new_steps / old_steps)))
        lambdas[i] = functools.partial(f.func, *f.args, **keywords)
    return True


class TimeBudgetCallback(TrainerCallback):
    """Fit the run into ``max_minutes`` of wall-clock training time (see the module docstring)."""

    def __init__(self, max_minutes: float, calibration_steps: int = 5) -> None:
        if not max_minutes > 0:
            raise ValueError(f"max_minutes must be > 0, got {max_minutes}")
        if calibration_steps < 2:
            raise ValueError(f"calibration_steps must be >= 2 (step 1 is start-up), got {calibration_steps}")
        self.budget_s = max_minutes * 60.0
        self.calibration_steps = calibration_steps
        self.start = self.after_first = self.last = None
        self.first_step = 0
        self.slowest_recent = 0.0
        self.fitted_steps: int | None = None
        self.stopped_at: int | None = None

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        self.start = self.last = time.monotonic()
        self.first_step = state.global_step  # > 0 when resuming: the budget is this run's

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        now = time.monotonic()
        step_s, self.last = now - self.last, now
        done = state.global_step - self.first_step
        if done == 1:
            self.after_first = now
        else:  # a slow step (an eval, a save, a long rollout) is remembered for a while, then decays
            self.slowest_recent = max(step_s, 0.8 * self.slowest_recent)
        if done == self.calibration_steps:
            self._fit(state, kwargs.get("lr_scheduler"), now)
        left = self.budget_s - (now - self.start)
        if _agree(float(left < self.slowest_recent), "max") > 0:
            self.stopped_at = state.max_steps = state.global_step
            control.should_training_stop = control.should_log = True
            # what the trainer does at its last step: the end-of-run evaluation and checkpoint
            control.should_evaluate |= args.eval_strategy == "steps"
            control.should_save |= args.save_strategy == "steps"
            logger.warning("time budget: %.1f of %.1f minutes used, stopping at step %d (next step ~%.0f s)",
                           (now - self.start) / 60, self.budget_s / 60, state.global_step, self.slowest_recent)
        return control

    def _fit(self, state: TrainerState, lr_scheduler: object, now: float) -> None:
        per_step = _agree((now - self.after_first) / (self.calibration_steps - 1), "max")
        left = self.budget_s - (now - self.start)
        fits = state.global_step + max(0, math.floor(left / per_step))
        if fits >= state.max_steps:
            return
        old = state.max_steps
        self.fitted_steps = state.max_steps = max(fits, state.global_step + 1)
        stretched = lr_scheduler is not None and stretch_schedule(lr_scheduler, old, state.max_steps)
        logger.warning(
            "time budget: %.2f s/step, so %d of max_steps=%d fit in %.1f minutes; max_steps is now %d%s",
            per_step, state.max_steps, old, self.budget_s / 60, state.max_steps,
            " and the LR schedule (warmup included) is fitted to it" if stretched else " (this LR schedule cannot be re-targeted: it runs as set)",
        )


__all__ = ["TimeBudgetCallback", "stretch_schedule"]
