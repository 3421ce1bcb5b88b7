"""Trainers and callbacks for RL on TRL: curriculum, adaptive KL, early stopping, run logs.

Usage::

    from rusty_hf.trainers import CurriculumGRPOTrainer, RLCallbacksConfig, add_rl_callbacks

    trainer = CurriculumGRPOTrainer(model=..., reward_funcs=..., args=GRPOConfig(...), train_dataset=tasks)
    add_rl_callbacks(trainer, RLCallbacksConfig(curriculum=True, early_stopping_patience=3))
    trainer.train()
"""

from rusty_hf.trainers.callbacks import (
    AdaptiveKLCallback,
    EntropyDecayCallback,
    RewardEarlyStoppingCallback,
    RLCallbacksConfig,
    add_rl_callbacks,
)
from rusty_hf.trainers.curriculum import (
    CurriculumCallback,
    CurriculumGRPOTrainer,
    CurriculumMixin,
    CurriculumRLOOTrainer,
    CurriculumSampler,
    CurriculumState,
)
from rusty_hf.trainers.ppo import PPOConfig, PPOTrainer
from rusty_hf.trainers.reward_guard import RewardGuard, guard_reward_funcs
from rusty_hf.trainers.step_split import StepSplitCallback
from rusty_hf.trainers.training_log import TrainingCurvesCallback, TrainingLogCallback, plot_training_curves

__all__ = [
    "AdaptiveKLCallback",
    "CurriculumCallback",
    "CurriculumGRPOTrainer",
    "CurriculumMixin",
    "CurriculumRLOOTrainer",
    "CurriculumSampler",
    "CurriculumState",
    "EntropyDecayCallback",
    "PPOConfig",
    "PPOTrainer",
    "RLCallbacksConfig",
    "RewardEarlyStoppingCallback",
    "RewardGuard",
    "StepSplitCallback",
    "TrainingCurvesCallback",
    "TrainingLogCallback",
    "add_rl_callbacks",
    "guard_reward_funcs",
    "plot_training_curves",
]
