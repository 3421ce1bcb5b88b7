"""rl_training.log (CSV) and training_curves.png, driven with synthetic log sequences."""

import csv
from pathlib import Path

import pytest
from transformers import TrainerControl, TrainerState, TrainingArguments

from rusty_hf.trainers.training_log import TrainingCurvesCallback, TrainingLogCallback

TRL_LOG = {  # the keys TRL's GRPOTrainer logs, plus ones our rewards log through log_metric
    "loss": 0.1,
    "reward": 0.75,
    "reward_std": 0.25,
    "rewards/execution_reward/mean": 0.5,
    "rewards/rust_reward/mean": 1.0,
    "execution/parse_rate": 0.8,
    "rust/compile_rate": 0.5,
    "kl": 0.01,
}


@pytest.fixture
def args(tmp_path):
    return TrainingArguments(output_dir=str(tmp_path), report_to="none", use_cpu=True)


def log_steps(callback, args, logs_by_step, state=None):
    state, control = state or TrainerState(), TrainerControl()
    callback.on_train_begin(args, state, control)
    for step, logs in logs_by_step:
        state.global_step = step
        state.log_history.append({**logs, "step": step})
        callback.on_log(args, state, control, logs=logs)
    callback.on_train_end(args, state, control)
    return state


def read_csv(args):
    with open(f"{args.output_dir}/rl_training.log", newline="") as f:
        return list(csv.reader(f))


def test_csv_has_the_agreed_header_and_one_row_per_training_log(args):
    callback = TrainingLogCallback(reward_names=["execution_reward", "rust_reward"])
    log_steps(callback, args, [(1, TRL_LOG), (2, {**TRL_LOG, "reward": 0.5}), (2, {"eval_loss": 1.0})])
    header, *rows = read_csv(args)
    assert header == [
        "iteration",
        "avg_reward",
        "reward_std",
        "compile_success_rate",
        "parse_success_rate",
        "kl",
        "loss",
        "execution_reward",
        "rust_reward",
    ]
    assert rows == [["1", "0.75", "0.25", "0.5", "0.8", "0.01", "0.1", "0.5", "1"],
                    ["2", "0.5", "0.25", "0.5", "0.8", "0.01", "0.1", "0.5", "1"]]


def test_csv_leaves_a_cell_empty_when_a_metric_is_absent(args):
    logs = {"loss": 0.1, "reward": 0.5, "reward_std": float("nan"), "rewards/execution_reward/mean": 0.5}
    log_steps(TrainingLogCallback(), args, [(1, logs)])
    header, row = read_csv(args)
    assert header[-1] == "execution_reward"  # reward columns read from the log when not given
    assert row == ["1", "0.5", "", "", "", "", "0.1", "0.5"]


def test_csv_parse_rate_falls_back_to_the_rust_reward_in_a_rust_only_run(args):
    log_steps(TrainingLogCallback(reward_names=[]), args, [(1, {"loss": 0.0, "rust/parse_rate": 0.25})])
    assert read_csv(args)[1] == ["1", "", "", "", "0.25", "", "0"]


def test_csv_skips_the_end_of_training_summary(args):
    log_steps(
        TrainingLogCallback(reward_names=[]), args, [(1, TRL_LOG), (1, {"train_loss": 0.1, "train_runtime": 2.0})]
    )
    assert len(read_csv(args)) == 2


def test_csv_of_a_resumed_run_appends_after_the_existing_rows(args):
    log_steps(TrainingLogCallback(reward_names=[]), args, [(1, TRL_LOG), (2, TRL_LOG)])
    resumed = TrainerState(global_step=2)
    log_steps(TrainingLogCallback(reward_names=[]), args, [(3, TRL_LOG)], state=resumed)
    assert [row[0] for row in read_csv(args)] == ["iteration", "1", "2", "3"]


def test_csv_is_written_by_the_main_process_only(args):
    state = TrainerState(is_world_process_zero=False)
    log_steps(TrainingLogCallback(), args, [(1, TRL_LOG)], state=state)
    assert not Path(args.output_dir, "rl_training.log").exists()


def test_curves_png_is_written_at_train_end(args, tmp_path):
    log_steps(TrainingCurvesCallback(), args, [(s, {**TRL_LOG, "reward": s / 10}) for s in range(1, 6)])
    png = tmp_path / "training_curves.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5_000


def test_no_png_without_logged_rewards_or_losses(args, tmp_path):
    log_steps(TrainingCurvesCallback(), args, [(1, {"eval_loss": 1.0})])
    assert not (tmp_path / "training_curves.png").exists()


def test_the_summary_states_the_rolling_reward_and_the_largest_and_last_kl_and_loss(args, tmp_path):
    from rusty_hf.trainers.training_log import summarise_log

    steps = [(s, {**TRL_LOG, "reward": s / 20, "kl": 0.001 * s, "loss": 0.5 - 0.01 * s}) for s in range(1, 21)]
    log_steps(TrainingLogCallback(reward_names=[]), args, steps)
    line = summarise_log(tmp_path / "rl_training.log")
    # rewards 0.05 .. 0.5: the first ten average 0.275, the last ten 0.775
    assert line == ("20 logged steps; reward 0.275 over the first 10 steps, 0.775 over the last 10; "
                    "KL to the reference at most 0.02, last 0.02; loss at most 0.49, last 0.3.")
    assert summarise_log(tmp_path / "missing.log") is None
