"""TimeBudgetCallback under a real transformers Trainer, on a clock the model's forward advances.

Each forward pass is one tick of a fake ``time.monotonic``, so the step times are exact and the tests do
not depend on how busy the machine is.
"""

from __future__ import annotations

import functools

import pytest
import torch
from torch import nn
from transformers import Trainer, TrainingArguments

from rusty_hf.training.arguments import RustyScriptArguments
from rusty_hf.training import time_budget
from rusty_hf.training.time_budget import TimeBudgetCallback, stretch_schedule


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Ticking(nn.Module):
    """A one-parameter model whose forward pass takes ``seconds(step)`` on the fake clock."""

    def __init__(self, clock: Clock, seconds) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.ones(1))
        self.clock, self.seconds, self.calls = clock, seconds, 0

    def forward(self, x, labels=None):
        self.calls += 1
        self.clock.now += self.seconds(self.calls)
        return {"loss": ((self.w * x - 3.0) ** 2).mean()}


class Rows(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 10_000

    def __getitem__(self, i):
        return {"x": torch.tensor([1.0])}


def _train(tmp_path, monkeypatch, seconds, minutes: float, scheduler: str, max_steps: int = 200, warmup: int = 2):
    clock = Clock()
    monkeypatch.setattr(time_budget.time, "monotonic", clock)
    args = TrainingArguments(
        output_dir=str(tmp_path), max_steps=max_steps, per_device_train_batch_size=1, learning_rate=0.1,
        lr_scheduler_type=scheduler, warmup_steps=warmup, logging_steps=1, save_strategy="no", report_to="none",
        use_cpu=True, disable_tqdm=True,
    )
    callback = TimeBudgetCallback(max_minutes=minutes)
    trainer = Trainer(model=Ticking(clock, seconds), args=args, train_dataset=Rows(), callbacks=[callback])
    trainer.train()
    lrs = [entry["learning_rate"] for entry in trainer.state.log_history if "learning_rate" in entry]
    return trainer, callback, clock, lrs


def test_max_steps_and_cosine_schedule_fit_the_budget(tmp_path, monkeypatch):
    # 1 s a step, 30 s of budget: after 5 steps, 25 more fit -> 30 steps, and the cosine ends at 0 there.
    trainer, callback, clock, lrs = _train(tmp_path, monkeypatch, lambda call: 1.0, minutes=0.5, scheduler="cosine")
    assert callback.fitted_steps == 30 and trainer.state.global_step == 30
    assert clock.now <= 30.0
    assert lrs[-1] < 0.01 * max(lrs)  # decayed to the end of the budget, not cut at the peak
    assert trainer.lr_scheduler.lr_lambdas[0].keywords["num_training_steps"] == 30
    assert trainer.lr_scheduler.lr_lambdas[0].keywords["num_warmup_steps"] == 1  # 2 of 200 planned -> at least 1


def test_a_long_warmup_shrinks_with_the_run_so_the_peak_lr_is_reached(tmp_path, monkeypatch):
    # 100 warmup steps planned for 200; 30 fit: the warmup becomes 15 and the peak (0.1) is reached.
    # Unfitted, the run would end at step 30 of a 100-step warmup, at 30% of the peak LR.
    trainer, callback, _, lrs = _train(tmp_path, monkeypatch, lambda call: 1.0, minutes=0.5, scheduler="cosine",
                                       warmup=100)
    assert callback.fitted_steps == 30
    assert trainer.lr_scheduler.lr_lambdas[0].keywords["num_warmup_steps"] == 15
    assert max(lrs) == pytest.approx(0.1, rel=0.01) and lrs[-1] < 0.05 * max(lrs)  # and it still decays


def test_a_run_that_fits_is_left_alone(tmp_path, monkeypatch):
    trainer, callback, _, _ = _train(tmp_path, monkeypatch, lambda call: 1.0, minutes=10, scheduler="linear", max_steps=20)
    assert callback.fitted_steps is None and callback.stopped_at is None and trainer.state.global_step == 20


def test_slower_steps_later_still_stop_inside_the_budget(tmp_path, monkeypatch):
    # GRPO-like: steps grow from 1 s to 6 s after the calibration, so the fit alone would overrun.
    trainer, callback, clock, _ = _train(
        tmp_path, monkeypatch, lambda call: 1.0 if call <= 8 else 6.0, minutes=1.0, scheduler="constant_with_warmup"
    )
    assert callback.stopped_at == trainer.state.global_step < callback.fitted_steps
    assert clock.now <= 60.0


def test_stretch_schedule_warmup_stable_decay_keeps_its_decay():
    from transformers.optimization import get_wsd_schedule

    optimizer = torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=1.0)
    scheduler = get_wsd_schedule(optimizer, num_warmup_steps=10, num_decay_steps=20, num_stable_steps=70)
    assert stretch_schedule(scheduler, old_steps=100, new_steps=50)
    assert scheduler.lr_lambdas[0].keywords["num_stable_steps"] == 20
    assert scheduler.lr_lambdas[0](49) < 0.1 < scheduler.lr_lambdas[0](25)


def test_stretch_schedule_refuses_what_it_cannot_retarget():
    optimizer = torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=1.0)
    assert not stretch_schedule(torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0), 100, 50)
    assert not stretch_schedule(torch.optim.lr_scheduler.StepLR(optimizer, step_size=5), 100, 50)
    unnamed = torch.optim.lr_scheduler.LambdaLR(optimizer, functools.partial(lambda step, scale: scale, scale=3))
    assert not stretch_schedule(unnamed, 100, 50)


def test_constant_with_warmup_keeps_its_level_and_shrinks_its_warmup():
    from transformers.optimization import get_constant_schedule_with_warmup

    optimizer = torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=1.0)
    scheduler = get_constant_schedule_with_warmup(optimizer, num_warmup_steps=50)  # GRPO r2: 50 of 2,000
    assert stretch_schedule(scheduler, old_steps=2000, new_steps=80)
    assert scheduler.lr_lambdas[0].keywords["num_warmup_steps"] == 2
    assert scheduler.lr_lambdas[0](2) == scheduler.lr_lambdas[0](79) == 1.0


def test_bad_budgets_are_clear_errors():
    with pytest.raises(ValueError, match="max_minutes must be > 0"):
        TimeBudgetCallback(0)
    with pytest.raises(ValueError, match="max_train_minutes must be > 0"):
        RustyScriptArguments(max_train_minutes=-1)
