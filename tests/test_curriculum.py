"""Curriculum by difficulty: state, sampler layout, promotion rule, and one real GRPOTrainer run.

The real run (tiny TinyRWKV, CPU, 4 steps) also carries the other RL callbacks through
``add_rl_callbacks`` and ``report_to=["tensorboard"]``, so it checks on TRL's own logs that the
CSV gets a row per logged step, beta and entropy_coef move, the best weights come back at the
end, and TensorBoard receives our metrics.
"""

import csv
import glob
from collections import defaultdict
from types import SimpleNamespace

import pytest
import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, TrainerCallback, TrainerControl, TrainerState, TrainingArguments
from trl import GRPOConfig
from trl.trainer.utils import RepeatSampler

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.trainers import RewardEarlyStoppingCallback, RLCallbacksConfig, add_rl_callbacks
from rusty_hf.trainers.curriculum import (
    CurriculumCallback,
    CurriculumGRPOTrainer,
    CurriculumMixin,
    CurriculumSampler,
    CurriculumState,
)
from tests.conftest import tiny_config

DIFFICULTIES = [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]


def tasks() -> Dataset:
    return Dataset.from_list([{"prompt": f"task {i}:", "difficulty": d} for i, d in enumerate(DIFFICULTIES)])


def chunks(indices: list[int], size: int) -> list[list[int]]:
    return [indices[i : i + size] for i in range(0, len(indices), size)]


def test_state_starts_at_the_lowest_level_and_promotes_one_level_at_a_time():
    state = CurriculumState.from_dataset(tasks())
    assert (state.levels, state.level) == ((1, 2, 3), 1)
    assert state.promote(step=4) and state.level == 2
    assert state.promote(step=9) and not state.promote(step=10)
    assert state.promotions == [(4, 2), (9, 3)]


def test_state_names_the_missing_difficulty_column():
    with pytest.raises(ValueError, match="'difficulty' column"):
        CurriculumState.from_dataset(Dataset.from_list([{"prompt": "p"}]))


def test_sampler_keeps_repeat_sampler_layout_and_length():
    state = CurriculumState.from_dataset(tasks())
    kwargs = dict(mini_repeat_count=2, batch_size=2, repeat_count=3, seed=0)
    indices = list(CurriculumSampler(state, **kwargs))
    assert len(indices) == len(CurriculumSampler(state, **kwargs)) == len(RepeatSampler(tasks(), **kwargs))
    for block in chunks(indices, 2 * 2 * 3):  # one chunk: 2 prompts x 2 generations, repeated 3 times
        assert block[:4] == block[4:8] == block[8:] and block[0] == block[1] and block[2] == block[3]


def test_sampler_draws_only_unlocked_levels_and_every_unlocked_row():
    state = CurriculumState.from_dataset(tasks())
    indices = list(CurriculumSampler(state, mini_repeat_count=1, batch_size=2, seed=0))
    assert {DIFFICULTIES[i] for i in indices} == {1}
    assert set(indices) == {0, 3, 6, 9}


def test_chunks_hold_distinct_prompts_across_reshuffles_of_the_pool():
    state = CurriculumState.from_dataset(tasks())  # 4 unlocked rows, 3 prompts per chunk
    indices = list(CurriculumSampler(state, mini_repeat_count=1, batch_size=3, seed=1))
    assert all(len(set(chunk)) == 3 for chunk in chunks(indices, 3))


def test_a_promotion_takes_effect_at_the_next_chunk_of_a_running_epoch():
    state = CurriculumState.from_dataset(tasks())
    iterator = iter(CurriculumSampler(state, mini_repeat_count=2, batch_size=2, seed=0))
    first = [next(iterator) for _ in range(3)]
    state.promote(step=1)
    rest = list(iterator)
    assert {DIFFICULTIES[i] for i in first + rest[:1]} == {1}  # the running chunk is finished as it began
    assert max(DIFFICULTIES[i] for i in rest[1:]) == 2


def test_samplers_with_the_same_seed_draw_the_same_indices_like_every_process_must():
    runs = []
    for _ in range(2):
        state = CurriculumState.from_dataset(tasks())
        iterator = iter(CurriculumSampler(state, mini_repeat_count=2, batch_size=2, seed=7))
        head = [next(iterator) for _ in range(8)]
        state.promote(step=2)
        runs.append(head + list(iterator))
    assert runs[0] == runs[1]


def drive_pass_rates(callback, rates):
    args = TrainingArguments(output_dir="unused", report_to="none", use_cpu=True)
    state, control = TrainerState(), TrainerControl()
    for step, rate in enumerate(rates, start=1):
        state.global_step = step
        callback.on_log(args, state, control, logs={"loss": 0.0, "execution/pass_rate": rate})


class FakeCurriculumTrainer(CurriculumMixin):
    def __init__(self):
        self.train_dataset = tasks()
        self._metrics = {"train": defaultdict(list)}


def test_callback_promotes_when_the_rolling_pass_rate_reaches_the_threshold():
    callback = CurriculumCallback(FakeCurriculumTrainer(), threshold=0.5, window=3)
    drive_pass_rates(callback, [0.9, 0.1, 0.3, 0.6, 0.9])  # windows: .43, .33, .6 -> promote at step 5
    assert callback.state.promotions == [(5, 2)]
    drive_pass_rates(callback, [0.9, 0.9])  # the window restarts after a promotion: 2 of 3 values
    assert callback.state.level == 2


def test_callback_refuses_a_trainer_without_the_curriculum_sampler():
    with pytest.raises(TypeError, match="CurriculumGRPOTrainer"):
        CurriculumCallback(SimpleNamespace(train_dataset=tasks()))


@pytest.fixture(scope="module")
def grpo_run(tmp_path_factory, tiny_tokenizer):
    """4 GRPO steps; a toy reward passes everything, so the curriculum climbs a level per log.

    Plain-text prompts of a few tokens (no chat template and its system prompt) keep it fast.
    """
    folder = tmp_path_factory.mktemp("tiny")
    torch.manual_seed(0)
    cfg = tiny_config(
        vocab_size=len(tiny_tokenizer),
        eos_token_id=tiny_tokenizer.eos_token_id,
        pad_token_id=tiny_tokenizer.pad_token_id,
        bos_token_id=tiny_tokenizer.bos_token_id,
    )
    TinyRWKVForCausalLM(cfg).save_pretrained(folder)  # beta > 0: TRL rebuilds the reference from a path
    seen = []

    def toy_pass_reward(completions, difficulty, log_metric=None, **kwargs):
        seen.append(list(difficulty))
        log_metric("execution/pass_rate", 1.0)
        return [1.0 / d for d in difficulty]

    args = GRPOConfig(
        output_dir=str(folder / "run"),
        max_steps=4,
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=8,
        learning_rate=1e-3,
        beta=0.04,
        entropy_coef=0.01,
        logging_steps=1,
        report_to=["tensorboard"],
        use_cpu=True,
        save_strategy="no",
        seed=0,
        activation_checkpointing=False,
    )
    trainer = CurriculumGRPOTrainer(
        model=AutoModelForCausalLM.from_pretrained(folder),
        reward_funcs=toy_pass_reward,
        args=args,
        train_dataset=tasks(),
        processing_class=tiny_tokenizer,
    )
    config = RLCallbacksConfig(
        curriculum=True,
        curriculum_threshold=0.5,
        curriculum_window=1,
        adaptive_kl_target=1e-6,
        adaptive_kl_horizon=10,
        entropy_coef_decay=0.5,
        early_stopping_patience=10,
        early_stopping_eval_every=1,
    )
    callbacks = add_rl_callbacks(trainer, config)
    weights = {}  # step -> parameters when that step was logged

    class KeepWeights(TrainerCallback):
        def on_log(self, args, state, control, **kwargs):
            weights[state.global_step] = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}

    trainer.add_callback(KeepWeights())
    trainer.train()
    stopper = next(c for c in callbacks if isinstance(c, RewardEarlyStoppingCallback))
    return SimpleNamespace(trainer=trainer, seen=seen, out=folder / "run", weights=weights, stopper=stopper)


@pytest.mark.slow
def test_real_grpo_run_promotes_then_samples_harder_prompts(grpo_run):
    assert grpo_run.trainer.curriculum_state.promotions == [(1, 2), (2, 3)]
    hardest = [max(batch) for batch in grpo_run.seen]  # one reward call per step
    # The accelerate dataloader fetches one batch ahead: a level unlocked at step k is sampled from k + 2.
    assert hardest[:2] == [1, 1] and hardest[2] <= 2 and max(hardest[2:]) > 1
    levels = [log["curriculum/level"] for log in grpo_run.trainer.state.log_history if "curriculum/level" in log]
    assert levels == [1, 2, 3, 3]


@pytest.mark.slow
def test_real_grpo_run_writes_a_csv_row_per_logged_step(grpo_run):
    with open(grpo_run.out / "rl_training.log", newline="") as f:
        header, *rows = list(csv.reader(f))
    assert header[-1] == "toy_pass_reward" and [row[0] for row in rows] == ["1", "2", "3", "4"]
    assert all(row[1] and row[7] for row in rows)  # avg_reward and the reward's own column are filled
    assert (grpo_run.out / "training_curves.png").stat().st_size > 5_000


@pytest.mark.slow
def test_real_grpo_run_steers_beta_from_the_logged_kl_and_decays_entropy_coef(grpo_run):
    trainer, expected = grpo_run.trainer, 0.04
    kls = [log["kl"] for log in trainer.state.log_history if "kl" in log]
    for kl in kls:
        expected *= 1 + min(max(kl / 1e-6 - 1, -0.2), 0.2) / 10  # one step per log, horizon 10
    assert len(kls) == 4 and trainer.beta == pytest.approx(expected) and trainer.beta != 0.04
    assert trainer.entropy_coef == pytest.approx(0.01 * 0.5**3)  # set at the start of step 4


@pytest.mark.slow
def test_real_grpo_run_reports_our_metrics_to_tensorboard(grpo_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    files = glob.glob(str(grpo_run.out / "runs" / "**" / "events.out.tfevents.*"), recursive=True)
    assert files
    tags = set(EventAccumulator(files[0]).Reload().Tags()["scalars"])
    assert {"train/reward", "train/curriculum/level", "train/adaptive_kl/beta", "train/entropy_decay/coef"} <= tags


@pytest.mark.slow
def test_real_grpo_run_ends_with_the_weights_of_the_best_reward_check(grpo_run):
    best = grpo_run.stopper.best_step  # rewards 1/difficulty fall as harder levels unlock
    assert best is not None and best < 4
    final = dict(grpo_run.trainer.model.named_parameters())
    assert all(torch.equal(final[n].detach(), p) for n, p in grpo_run.weights[best].items())
    assert not all(torch.equal(final[n].detach(), p) for n, p in grpo_run.weights[4].items())
