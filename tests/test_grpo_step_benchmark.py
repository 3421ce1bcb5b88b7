"""benchmarks/grpo_step.py's reading of a run's log: the mean split after warm-up."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from grpo_step import split_of, table  # noqa: E402


def _log(step, generation, reward, scoring, update, completions=16):
    total = generation + reward + scoring + update
    return {"step": step, "time/generation_s": generation, "time/reward_s": reward, "time/scoring_s": scoring,
            "time/update_s": update, "time/step_s": total, "rollouts": completions, "rollouts_per_s": completions / total}  # fmt: skip


def test_the_split_is_the_mean_over_the_steps_after_warm_up():
    history = [_log(1, 9.0, 9.0, 9.0, 9.0), _log(2, 1.0, 0.5, 0.25, 0.25), {"step": 2, "train_loss": 0.1},
               _log(3, 3.0, 0.5, 0.25, 0.25)]  # fmt: skip
    result = split_of(history, warmup=1)
    assert result["steps"] == 2 and result["seconds_per_step"] == pytest.approx(3.0)
    assert result["parts_s"] == {"generation": 2.0, "reward": 0.5, "scoring": 0.25, "update": 0.25}
    assert sum(result["parts_share"].values()) == pytest.approx(1.0)
    assert result["rollouts_per_s"] == pytest.approx(32 / 6, abs=1e-3)  # all completions over all the time, not a mean of rates
    assert "| generation | 2.000 | 66.7% |" in table(result)


def test_a_run_without_a_split_or_a_generation_after_warm_up_says_what_to_change():
    with pytest.raises(SystemExit, match="raise --steps"):
        split_of([_log(1, 1.0, 1.0, 1.0, 1.0)], warmup=1)
    with pytest.raises(SystemExit, match="steps_per_generation"):  # TRL generated before the window, not in it
        split_of([_log(1, 1.0, 1.0, 1.0, 1.0), _log(2, 0.0, 0.0, 0.0, 1.0, completions=0)], warmup=1)
