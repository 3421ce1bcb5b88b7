"""Where an online RL step's time goes: generation, reward, scoring, update (issue 36, item 5).

`StepSplitCallback` times the trainer's own methods and puts the split in its logs (``log_step_split: true``
in a GRPO, RLOO or PPO recipe; ``benchmarks/grpo_step.py`` reads it back):

- ``time/generation_s``: ``_generate``, every completion of the step (TRL's sampling and a ``rollout_func``'s,
  which decodes the terminal prompts as served);
- ``time/reward_s``: ``_calculate_rewards``, every reward function (the sandbox's runs included);
- ``time/scoring_s``: the rest of ``_generate_and_score_completions`` (tokenising, the old policy's and the
  reference model's log-probs, advantages);
- ``time/update_s``: the rest of the optimizer step (the loss's forward and backward, clipping, the optimizer);
- ``time/step_s``; ``rollouts``, the completions generated in the step, summed over processes (TRL generates once
  every ``steps_per_generation`` x ``num_iterations`` steps: the steps between generate none);
- ``rollouts_per_s``: the completions of the log's steps over their time (not a mean of per-step rates).

Each other value is per optimizer step, averaged over the steps of a log like TRL's own metrics. On CUDA each boundary
synchronizes the device (a few syncs per step), so the times are the device's and not the launch queue's: a
measuring tool, off by default.
"""

from __future__ import annotations

import functools
import time
from typing import Any

import torch
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from rusty_hf.trainers.log_records import record_metric

# The methods timed, the bucket each adds to; TRL's GRPOTrainer and RLOOTrainer (and our PPOTrainer) define all three
TIMED = {"_generate": "generation", "_calculate_rewards": "reward", "_generate_and_score_completions": "generate_and_score"}


class StepSplitCallback(TrainerCallback):
    """Log how each optimizer step of ``trainer`` splits into generation, reward, scoring and update.

    Raises:
        TypeError: ``trainer`` lacks one of the timed methods (not a TRL online trainer of this generation).
    """

    def __init__(self, trainer: Any):
        missing = [name for name in TIMED if not callable(getattr(trainer, name, None))]
        if missing:
            raise TypeError(f"{type(trainer).__name__} has no {', '.join(missing)}: the step split times the methods of "
                            "TRL's GRPOTrainer and RLOOTrainer (GRPO, GSPO, RLOO, our PPO); leave log_step_split off "
                            "for this trainer")
        self.trainer = trainer
        self.cuda = torch.cuda.is_available()
        self.spent: dict[str, float] = dict.fromkeys(TIMED.values(), 0.0)
        self.completions = 0
        self._start = 0.0
        self._window = [0.0, 0.0]  # completions and seconds since the last log: rollouts_per_s is their ratio
        for name, bucket in TIMED.items():
            setattr(trainer, name, self._timed(getattr(trainer, name), bucket))

    def _now(self) -> float:
        if self.cuda:
            torch.cuda.synchronize()
        return time.perf_counter()

    def _timed(self, method, bucket: str):
        @functools.wraps(method)
        def timed(*args, **kwargs):
            if bucket == "generation" and args and isinstance(args[0], list):
                self.completions += len(args[0])  # one prompt per completion (TRL repeats each num_generations times)
            start = self._now()
            try:
                return method(*args, **kwargs)
            finally:
                self.spent[bucket] += self._now() - start

        return timed

    def on_step_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        self.spent = dict.fromkeys(self.spent, 0.0)
        self.completions = 0
        self._start = self._now()

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        step = self._now() - self._start
        spent = self.spent
        split = {"generation": spent["generation"], "reward": spent["reward"],
                 "scoring": max(spent["generate_and_score"] - spent["generation"] - spent["reward"], 0.0),
                 "update": max(step - spent["generate_and_score"], 0.0), "step": step}  # fmt: skip
        for name, seconds in split.items():
            record_metric(self.trainer, f"time/{name}_s", seconds)
        completions = self._all_processes(self.completions)
        record_metric(self.trainer, "rollouts", completions)
        self._window = [self._window[0] + completions, self._window[1] + step]
        rate = self._window[0] / self._window[1] if self._window[1] > 0 else 0.0
        record_metric(self.trainer, "rollouts_per_s", rate, replace=True)  # the window's total, not a mean of rates

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, logs=None, **kwargs):
        self._window = [0.0, 0.0]

    def _all_processes(self, count: int) -> float:
        """``count`` summed over the processes of a distributed run (each generates its share of the completions)."""
        accelerator = getattr(self.trainer, "accelerator", None)
        if accelerator is None or accelerator.num_processes <= 1:
            return float(count)
        return float(accelerator.reduce(torch.tensor(float(count), device=accelerator.device), reduction="sum").item())


__all__ = ["StepSplitCallback", "TIMED"]
