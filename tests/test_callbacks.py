"""Early stopping, adaptive KL and entropy decay, driven with synthetic TrainerState/log sequences."""

from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch
from transformers import TrainerControl, TrainerState, TrainingArguments

from rusty_hf.trainers.callbacks import (
    AdaptiveKLCallback,
    EntropyDecayCallback,
    RewardEarlyStoppingCallback,
    RLCallbacksConfig,
    add_rl_callbacks,
    record_metric,
)
from rusty_hf.trainers.training_log import TrainingCurvesCallback, TrainingLogCallback


def fake_trainer(**attrs):
    """What the callbacks touch on a TRL online trainer: a model, per-log metrics, add_callback."""
    trainer = SimpleNamespace(model=torch.nn.Linear(3, 2), _metrics={"train": defaultdict(list)}, callbacks=[])
    trainer.add_callback = trainer.callbacks.append
    trainer.__dict__.update(attrs)
    return trainer


@pytest.fixture
def args(tmp_path):
    return TrainingArguments(output_dir=str(tmp_path), report_to="none", use_cpu=True)


def drive(callback, args, logs_by_step, trainer=None, on_step=None):
    """Run callback hooks as Trainer does: step_begin, (update), step_end, log; return control."""
    state, control = TrainerState(), TrainerControl()
    callback.on_train_begin(args, state, control)
    for step, logs in logs_by_step:
        callback.on_step_begin(args, state, control)
        state.global_step = step
        if on_step:
            on_step(step)
        callback.on_step_end(args, state, control)
        callback.on_log(args, state, control, logs=logs)
        if control.should_training_stop:
            break
    callback.on_train_end(args, state, control)
    return state, control


def test_adaptive_kl_raises_beta_by_the_clipped_error_when_kl_is_above_target(args):
    trainer = fake_trainer(beta=0.1)
    drive(AdaptiveKLCallback(trainer, target_kl=0.05, horizon=10), args, [(5, {"loss": 0.0, "kl": 0.2})])
    assert trainer.beta == pytest.approx(0.1 * (1 + 0.2 * 5 / 10))  # error clipped from 3.0 to 0.2


def test_adaptive_kl_lowers_beta_proportionally_when_kl_is_below_target(args):
    trainer = fake_trainer(beta=0.1)
    logs = [(2, {"loss": 0.0, "kl": 0.045}), (3, {"loss": 0.0, "kl": 0.045})]
    drive(AdaptiveKLCallback(trainer, target_kl=0.05, horizon=10), args, logs)
    assert trainer.beta == pytest.approx(0.1 * (1 - 0.1 * 2 / 10) * (1 - 0.1 * 1 / 10))


def test_adaptive_kl_ignores_eval_logs_and_logs_beta(args):
    trainer = fake_trainer(beta=0.1)
    drive(AdaptiveKLCallback(trainer, target_kl=0.05), args, [(1, {"eval_loss": 0.0, "eval_kl": 9.0})])
    assert trainer.beta == 0.1
    assert trainer._metrics["train"]["adaptive_kl/beta"] == [0.1]


def test_adaptive_kl_refuses_a_trainer_built_with_beta_zero():
    with pytest.raises(ValueError, match="beta > 0"):
        AdaptiveKLCallback(fake_trainer(beta=0.0), target_kl=0.05)


def test_early_stopping_stops_after_patience_checks_without_improvement(args):
    callback = RewardEarlyStoppingCallback(fake_trainer(), patience=2, min_improvement=0.05, eval_every=2)
    rewards = [0.1, 0.2, 0.5, 0.5, 0.52, 0.53, 0.5, 0.5, 0.9, 0.9]  # checks at 2,4,6,8: 0.15, 0.5, 0.525, 0.5
    state, control = drive(callback, args, [(i + 1, {"loss": 0.0, "reward": r}) for i, r in enumerate(rewards)])
    assert control.should_training_stop and state.global_step == 8
    assert (callback.best_step, callback.best_reward) == (4, pytest.approx(0.5))


def test_early_stopping_keeps_training_while_the_reward_improves(args):
    callback = RewardEarlyStoppingCallback(fake_trainer(), patience=1, eval_every=1)
    _, control = drive(callback, args, [(s, {"loss": 0.0, "reward": s / 10}) for s in range(1, 6)])
    assert not control.should_training_stop and callback.best_step == 5


def test_early_stopping_restores_the_weights_of_the_best_check(args):
    trainer = fake_trainer()

    def train_step(step):  # the "optimizer" writes the step into the weights
        with torch.no_grad():
            trainer.model.weight.fill_(float(step))

    logs = [(s, {"loss": 0.0, "reward": r}) for s, r in [(1, 0.1), (2, 0.9), (3, 0.2), (4, 0.3)]]
    drive(RewardEarlyStoppingCallback(trainer, patience=2, eval_every=1), args, logs, on_step=train_step)
    assert torch.all(trainer.model.weight == 2.0)


@pytest.mark.parametrize("tail, kept", [(0.9, 5.0), (0.05, 3.0)])
def test_steps_after_the_last_check_are_judged_when_a_run_is_cut(args, tail, kept):
    """A time budget stops at step 5 between checks (every 3 steps): the last two steps are kept
    when their reward beats the best check, and rolled back to it when it does not."""
    trainer = fake_trainer()

    def train_step(step):
        with torch.no_grad():
            trainer.model.weight.fill_(float(step))

    logs = [(s, {"loss": 0.0, "reward": 0.1 if s <= 3 else tail}) for s in range(1, 6)]
    drive(RewardEarlyStoppingCallback(trainer, patience=2, eval_every=3), args, logs, on_step=train_step)
    assert torch.all(trainer.model.weight == kept)


def test_entropy_decay_sets_the_coefficient_down_to_the_floor(args):
    trainer = fake_trainer(entropy_coef=0.1)
    callback = EntropyDecayCallback(trainer, decay=0.5, floor=0.02)
    seen = []
    drive(
        callback, args, [(s, {"loss": 0.0}) for s in range(1, 5)], on_step=lambda s: seen.append(trainer.entropy_coef)
    )
    assert seen == pytest.approx([0.1, 0.05, 0.025, 0.02])  # set at step begin from steps 0..3
    assert trainer._metrics["train"]["entropy_decay/coef"] == [0.02]


def test_entropy_decay_warns_and_does_nothing_without_entropy_coef(args):
    trainer = fake_trainer()
    with pytest.warns(UserWarning, match="no entropy_coef"):
        callback = EntropyDecayCallback(trainer, decay=0.9)
    drive(callback, args, [(1, {"loss": 0.0})])
    assert not hasattr(trainer, "entropy_coef")


def test_entropy_decay_refuses_a_trainer_built_without_the_bonus():
    trainer = fake_trainer(entropy_coef=0.0, _entropy_bonus_enabled=False)
    with pytest.raises(ValueError, match="set entropy_coef"):
        EntropyDecayCallback(trainer, decay=0.9, initial=0.1)


def test_record_metric_replaces_or_appends_in_the_next_log():
    trainer = fake_trainer()
    record_metric(trainer, "a", 1)
    record_metric(trainer, "a", 2)
    record_metric(trainer, "b", 1, replace=True)
    record_metric(trainer, "b", 3, replace=True)
    assert dict(trainer._metrics["train"]) == {"a": [1.0, 2.0], "b": [3.0]}


def test_config_rejects_a_non_positive_kl_target():
    with pytest.raises(ValueError, match="adaptive_kl_target"):
        RLCallbacksConfig(adaptive_kl_target=0.0)


def test_add_rl_callbacks_attaches_what_the_config_enables():
    trainer = fake_trainer(beta=0.1, entropy_coef=0.01, reward_func_names=["execution_reward"])
    config = RLCallbacksConfig(adaptive_kl_target=0.05, entropy_coef_decay=0.99, early_stopping_patience=2)
    added = add_rl_callbacks(trainer, config)
    kinds = [type(c) for c in trainer.callbacks]
    assert added == trainer.callbacks
    assert kinds == [
        AdaptiveKLCallback,
        EntropyDecayCallback,
        RewardEarlyStoppingCallback,
        TrainingLogCallback,
        TrainingCurvesCallback,
    ]
    assert added[3].reward_names == ["execution_reward"]


def test_add_rl_callbacks_attaches_the_step_split_when_asked():
    from rusty_hf.trainers import StepSplitCallback

    methods = {name: (lambda *a, **k: None) for name in ("_generate", "_calculate_rewards", "_generate_and_score_completions")}
    trainer = fake_trainer(**methods)
    added = add_rl_callbacks(trainer, RLCallbacksConfig(training_log=False, plot_curves=False, log_step_split=True))
    assert [type(c) for c in added] == [StepSplitCallback]
    assert add_rl_callbacks(fake_trainer(**methods), RLCallbacksConfig(training_log=False, plot_curves=False)) == []


def test_early_stopping_on_a_sharded_model_keeps_the_last_weights_and_says_so(caplog):
    trainer = fake_trainer(is_fsdp_enabled=True, is_world_process_zero=lambda: True)
    with caplog.at_level("WARNING", logger="rusty_hf.trainers.callbacks"):
        (stopper,) = add_rl_callbacks(trainer, RLCallbacksConfig(early_stopping_patience=2, training_log=False,
                                                                 plot_curves=False))
    assert isinstance(stopper, RewardEarlyStoppingCallback) and not stopper.restore_best
    assert len(caplog.records) == 1 and "save_strategy" in caplog.text
