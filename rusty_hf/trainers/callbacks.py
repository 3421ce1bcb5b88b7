"""Callbacks that steer an RL run: early stopping on reward, adaptive KL, entropy decay.

They are transformers ``TrainerCallback``s for TRL's GRPOTrainer / RLOOTrainer and our PPOTrainer.
A callback only receives ``args, state, control`` and the model, so the ones that must change the
trainer itself take it in their constructor -- build the trainer, then attach::

    trainer = GRPOTrainer(model=..., reward_funcs=..., args=GRPOConfig(beta=0.04, ...), ...)
    trainer.add_callback(AdaptiveKLCallback(trainer, target_kl=0.05, horizon=100))
    trainer.add_callback(RewardEarlyStoppingCallback(trainer, patience=3, eval_every=20))

or let :func:`add_rl_callbacks` wire what an :class:`RLCallbacksConfig` enables (plus the CSV log,
the curve plot, and the curriculum, which live in ``training_log.py`` and ``curriculum.py``).
TensorBoard needs no callback here: ``report_to=["tensorboard"]`` in the trainer config, and every
metric these callbacks record (``adaptive_kl/beta``, ``entropy_decay/coef``, ``curriculum/level``)
reaches it with TRL's own metrics.
"""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any

import torch
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from rusty_hf.training.arguments import RLCallbacksConfig
from rusty_hf.trainers.curriculum import CurriculumCallback
from rusty_hf.trainers.log_records import is_train_log, record_metric
from rusty_hf.trainers.step_split import StepSplitCallback
from rusty_hf.trainers.training_log import TrainingCurvesCallback, TrainingLogCallback
from rusty_hf.training.sharding import is_sharded

logger = logging.getLogger(__name__)


class RewardEarlyStoppingCallback(TrainerCallback):
    """Stop when the mean reward stops improving, then restore the best weights seen.

    Every ``eval_every`` optimizer steps the mean of the rewards logged since the previous check is
    compared with the best mean so far; ``patience`` checks in a row without an improvement of
    more than ``min_improvement`` stop training. The trainable parameters at the best check are
    kept on CPU and copied back at the end of training (so ``trainer.save_model()`` saves them).

    Args:
        trainer: the trainer whose model is snapshotted and restored.
        patience: checks without improvement before stopping.
        min_improvement: how much a check's mean must beat the best to count as better.
        eval_every: optimizer steps between checks (a multiple of ``logging_steps`` is exact).
        metric: the logged key (TRL logs the weighted reward sum as ``reward``).
        restore_best: copy the best weights back at train end.
    """

    def __init__(
        self,
        trainer: Any,
        patience: int = 3,
        min_improvement: float = 0.0,
        eval_every: int = 10,
        metric: str = "reward",
        restore_best: bool = True,
    ):
        if patience < 1 or eval_every < 1:
            raise ValueError(f"patience and eval_every must be >= 1, got {patience} and {eval_every}")
        if restore_best and (
            getattr(trainer, "is_fsdp_enabled", False) or getattr(trainer, "is_deepspeed_enabled", False)
        ):
            raise ValueError(
                "best-weight restore copies whole parameters on each process, which sharded FSDP/DeepSpeed "
                "parameters are not; pass restore_best=False and keep checkpoints with save_strategy instead"
            )
        self.trainer = trainer
        self.patience, self.min_improvement, self.eval_every = patience, min_improvement, eval_every
        self.metric, self.restore_best = metric, restore_best
        self.best_reward: float | None = None
        self.best_step: int | None = None
        self.bad_checks = 0
        self._pending: list[float] = []
        self._last_check = 0
        self._best_weights: dict[str, torch.Tensor] | None = None

    def _model(self) -> torch.nn.Module:
        accelerator = getattr(self.trainer, "accelerator", None)
        return accelerator.unwrap_model(self.trainer.model) if accelerator else self.trainer.model

    def _snapshot(self) -> None:
        # Frozen parameters (a PEFT base model) never change, so only trainable ones are copied.
        self._best_weights = {
            name: p.detach().to("cpu", copy=True) for name, p in self._model().named_parameters() if p.requires_grad
        }

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        self._last_check = state.global_step

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, logs=None, **kwargs):
        value = (logs or {}).get(self.metric)
        if not is_train_log(logs) or value is None or math.isnan(value):
            return
        self._pending.append(float(value))
        if state.global_step - self._last_check >= self.eval_every:
            self._check(state, control)

    def _check(self, state: TrainerState, control: TrainerControl) -> None:
        mean = sum(self._pending) / len(self._pending)
        self._pending.clear()
        self._last_check = state.global_step
        if self.best_reward is None or mean > self.best_reward + self.min_improvement:
            self.best_reward, self.best_step, self.bad_checks = mean, state.global_step, 0
            if self.restore_best:
                self._snapshot()
            return
        self.bad_checks += 1
        if self.bad_checks >= self.patience:
            logger.info(
                "early stopping at step %d: mean %s %.4f has not beaten %.4f (step %d) for %d checks",
                state.global_step,
                self.metric,
                mean,
                self.best_reward,
                self.best_step,
                self.bad_checks,
            )
            control.should_training_stop = True

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        if self._pending:  # steps since the last check (a run cut by max_steps or a time budget) are judged too
            self._check(state, control)
        if self.best_step is None:
            return
        logger.info("best mean %s %.4f at step %d", self.metric, self.best_reward, self.best_step)
        if self.restore_best and self._best_weights is not None and self.best_step != state.global_step:
            with torch.no_grad():
                for name, param in self._model().named_parameters():
                    if name in self._best_weights:
                        param.copy_(self._best_weights[name].to(param.device))
            logger.info("restored the weights of step %d", self.best_step)


class AdaptiveKLCallback(TrainerCallback):
    """Steer the KL coefficient ``trainer.beta`` towards a target KL (Ziegler et al., 2019).

    After each logged step: ``error = clip(kl / target_kl - 1, -0.2, 0.2)`` and
    ``beta *= 1 + error * n_steps / horizon``, with ``n_steps`` the optimizer steps since the
    previous update and ``horizon`` in optimizer steps (the paper counts samples: its 10,000 is
    10,000 / batch size steps here). ``kl`` is TRL's per-token mean, so ``target_kl`` is per token.

    TRL builds a reference model and computes ``kl`` only when ``beta > 0`` at construction, so the
    trainer must start with ``beta > 0`` (e.g. ``GRPOConfig(beta=0.04)``).
    """

    def __init__(self, trainer: Any, target_kl: float, horizon: int = 10_000):
        if target_kl <= 0 or horizon <= 0:
            raise ValueError(f"target_kl and horizon must be > 0, got {target_kl} and {horizon}")
        beta = getattr(trainer, "beta", None)
        if beta is None:
            raise TypeError(
                f"{type(trainer).__name__} has no `beta` to adapt (use GRPOTrainer, RLOOTrainer or PPOTrainer)"
            )
        if beta <= 0:
            raise ValueError(
                f"adaptive KL needs beta > 0 when the trainer is built (got {beta}): with beta=0 TRL builds no "
                "reference model and logs no KL; set beta (e.g. 0.04) in the trainer config"
            )
        self.trainer, self.target_kl, self.horizon = trainer, target_kl, horizon
        self._last_update = 0

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        self._last_update = state.global_step

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        record_metric(self.trainer, "adaptive_kl/beta", self.trainer.beta, replace=True)

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, logs=None, **kwargs):
        kl = (logs or {}).get("kl")
        if not is_train_log(logs) or kl is None or math.isnan(kl):
            return
        n_steps = state.global_step - self._last_update
        self._last_update = state.global_step
        error = min(max(kl / self.target_kl - 1.0, -0.2), 0.2)
        self.trainer.beta *= 1.0 + error * n_steps / self.horizon


class EntropyDecayCallback(TrainerCallback):
    """Decay the entropy bonus: ``trainer.entropy_coef = max(floor, initial * decay ** step)``.

    TRL's GRPOTrainer (and PPOTrainer on top of it) applies ``entropy_coef`` only when it was
    non-zero at construction, so set ``entropy_coef`` in the trainer config and let this decay it.
    A trainer without ``entropy_coef`` (RLOOTrainer) gets a warning and no change.
    """

    def __init__(self, trainer: Any, decay: float, floor: float = 0.0, initial: float | None = None):
        if not 0 < decay <= 1:
            raise ValueError(f"entropy decay must be in (0, 1], got {decay}")
        self.trainer, self.decay, self.floor = trainer, decay, floor
        self.active = hasattr(trainer, "entropy_coef")
        if not self.active:
            warnings.warn(f"{type(trainer).__name__} has no entropy_coef: entropy decay does nothing", stacklevel=2)
            return
        if getattr(trainer, "use_adaptive_entropy", False):
            raise ValueError(
                "use_adaptive_entropy=True already steers entropy_coef; turn it off to decay the coefficient"
            )
        self.initial = trainer.entropy_coef if initial is None else initial
        if self.initial > 0 and getattr(trainer, "_entropy_bonus_enabled", True) is False:
            raise ValueError(
                "the trainer was built with entropy_coef=0, so it applies no entropy bonus; "
                "set entropy_coef (the starting value) in the trainer config"
            )
        if not 0 <= floor <= self.initial:
            raise ValueError(f"entropy floor must be in [0, initial coef {self.initial}], got {floor}")
        if self.initial == 0:
            warnings.warn("entropy_coef is 0: entropy decay has nothing to decay", stacklevel=2)

    def coef(self, step: int) -> float:
        return max(self.floor, self.initial * self.decay**step)

    def on_step_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        if self.active:
            self.trainer.entropy_coef = self.coef(state.global_step)

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        if self.active:
            record_metric(self.trainer, "entropy_decay/coef", self.trainer.entropy_coef, replace=True)


def add_rl_callbacks(trainer: Any, config: RLCallbacksConfig) -> list[TrainerCallback]:
    """Attach to ``trainer`` every callback ``config`` enables and return them, in order.

    Call it after building the trainer and before ``trainer.train()`` (the curriculum must be in
    place before the dataloader is built). ``config.curriculum`` needs a CurriculumMixin trainer.
    """
    callbacks: list[TrainerCallback] = []
    if config.curriculum:
        callbacks.append(
            CurriculumCallback(trainer, config.curriculum_threshold, config.curriculum_window, config.curriculum_metric)
        )
    if config.adaptive_kl_target is not None:
        callbacks.append(AdaptiveKLCallback(trainer, config.adaptive_kl_target, config.adaptive_kl_horizon))
    if config.entropy_coef_decay is not None:
        callbacks.append(EntropyDecayCallback(trainer, config.entropy_coef_decay, config.entropy_coef_floor))
    if config.early_stopping_patience is not None:
        sharded = is_sharded(trainer) or getattr(trainer, "is_deepspeed_enabled", False)
        if sharded and trainer.is_world_process_zero():
            logger.warning("early stopping on a sharded (FSDP) model stops at the last weights, not the best: "
                           "restoring needs whole parameters; keep checkpoints with save_strategy to go back")
        callbacks.append(
            RewardEarlyStoppingCallback(
                trainer,
                config.early_stopping_patience,
                config.early_stopping_min_improvement,
                config.early_stopping_eval_every,
                restore_best=not sharded,
            )
        )
    if config.training_log:
        callbacks.append(TrainingLogCallback(reward_names=getattr(trainer, "reward_func_names", None)))
    if config.plot_curves:
        callbacks.append(TrainingCurvesCallback())
    if config.log_step_split:
        callbacks.append(StepSplitCallback(trainer))
    for callback in callbacks:
        trainer.add_callback(callback)
    return callbacks
