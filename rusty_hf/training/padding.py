"""How full the training rows are: the pad fraction and the real tokens per optimizer step, in every log.

Padded rows waste compute on pad positions; packed rows (TRL's `packing=True`) carry none. `PaddingMeter`
counts, over the training forwards since the last log, the positions the model ran and the real (unmasked)
ones, and adds to each log

- ``pad_fraction``: 1 - real / run positions;
- ``real_tokens_per_step``: real tokens per optimizer step.

It reads ``input_ids`` (or ``inputs_embeds``) and ``attention_mask`` from a forward pre-hook on the trained
model, whatever collator or dataloader workers built the batch; rows without a mask (padding-free) count as
all real. The sums stay on the device until a log, so counting adds no host sync to a step. The numbers join
the trainer's own logs (its ``log`` is wrapped, as TRL's trainers add their metrics there): a callback's
``on_log`` sees a copy that the log history and the reporters never read back.

    meter = PaddingMeter.attach(trainer)   # recipes/sft.py and recipes/pretrain.py, through train_and_finish
"""

from __future__ import annotations

import functools

import torch
from transformers import Trainer


class PaddingMeter:
    """Counts run and real positions of training forwards; adds pad_fraction and real_tokens_per_step to logs."""

    def __init__(self) -> None:
        self.positions = 0
        self.real: torch.Tensor | int = 0
        self.last_step = 0

    @classmethod
    def attach(cls, trainer: Trainer) -> PaddingMeter:
        meter = cls()
        trainer.model.register_forward_pre_hook(meter.count, with_kwargs=True)
        log = trainer.log

        @functools.wraps(log)
        def log_with_padding(logs, *args, **kwargs):
            meter.add_to(logs, trainer.state.global_step)
            return log(logs, *args, **kwargs)

        trainer.log = log_with_padding
        return meter

    def count(self, module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        if not module.training or not torch.is_grad_enabled():
            return  # evaluation and no-grad passes are not training rows
        ids = kwargs.get("input_ids", args[0] if args else None)
        if ids is None:
            ids = kwargs.get("inputs_embeds")
        if ids is None:
            return
        shape = ids.shape[:2]
        self.positions += shape[0] * shape[1]
        mask = kwargs.get("attention_mask")
        self.real = self.real + (mask.sum() if mask is not None else shape[0] * shape[1])

    def add_to(self, logs: dict, global_step: int) -> None:
        """Add the numbers since the last training log to ``logs`` (a training log: it has ``loss``)."""
        if self.positions == 0 or "loss" not in logs:
            return
        real = float(self.real)  # the one host sync, once per log
        steps = max(1, global_step - self.last_step)
        logs["pad_fraction"] = round(1.0 - real / self.positions, 4)
        logs["real_tokens_per_step"] = round(real / steps, 1)
        self.positions, self.real, self.last_step = 0, 0, global_step
