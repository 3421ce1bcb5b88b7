"""A guarded reward function never raises: failures score None, are counted and logged as a metric."""

import asyncio
import logging

import pytest
from trl.trainer.utils import is_async_callable

from rusty_hf.trainers.reward_guard import (
    AsyncRewardGuard,
    RewardGuard,
    guard_reward_funcs,
)


def flaky_reward(completions, **kwargs):
    raise RuntimeError("sandbox exploded")


def length_reward(completions, **kwargs):
    return [float(len(c)) for c in completions]


def _metrics():
    logged = {}
    return logged, lambda name, value: logged.setdefault(name, []).append(value)


def test_a_raising_reward_scores_none_counts_and_logs_the_failure(caplog):
    (guard,) = guard_reward_funcs(flaky_reward)
    logged, log_metric = _metrics()
    with caplog.at_level(logging.WARNING):
        out = guard(prompts=["p"] * 3, completions=["a", "b", "c"], log_metric=log_metric)
        guard(prompts=["p"] * 2, completions=["a", "b"], log_metric=log_metric)
    assert out == [None, None, None]
    assert guard.failures == 5
    assert logged == {"rewards/flaky_reward/failures": [3.0, 2.0]}
    assert sum("sandbox exploded" in r.getMessage() for r in caplog.records) == 1  # same failure logged once


def test_a_working_reward_passes_through_under_its_own_name():
    (guard,) = guard_reward_funcs([length_reward])
    logged, log_metric = _metrics()
    assert guard(prompts=["p", "p"], completions=["ab", "c"], log_metric=log_metric) == [2.0, 1.0]
    assert guard.__name__ == "length_reward" and guard.failures == 0
    assert logged == {"rewards/length_reward/failures": [0.0]}


@pytest.mark.parametrize(
    "bad, reason",
    [([1.0], "returned 1 rewards for 2 completions"), ("0.5", "not a list"), ([1.0, "x"], "returned a str")],
)
def test_a_malformed_return_counts_as_a_failure_naming_the_fix(bad, reason, caplog):
    guard = RewardGuard(lambda completions, **kw: bad)
    with caplog.at_level(logging.WARNING):
        assert guard(prompts=["p", "p"], completions=["a", "b"]) == [None, None]
    assert reason in caplog.text and "one float (or None) per completion" in caplog.text


def test_an_async_reward_stays_async_and_guarded():
    async def slow_flaky_reward(completions, **kwargs):
        raise TimeoutError("teacher timed out")

    (guard,) = guard_reward_funcs([slow_flaky_reward])
    assert isinstance(guard, AsyncRewardGuard) and is_async_callable(guard)
    assert asyncio.run(guard(prompts=["p"], completions=["a"])) == [None]
    assert guard.failures == 1


def test_guarding_is_idempotent_and_interrupts_still_stop_the_run():
    (once,) = guard_reward_funcs([flaky_reward])
    assert guard_reward_funcs([once])[0] is once
    assert guard_reward_funcs("org/reward-model") == ["org/reward-model"]  # TRL loads reward models itself

    def interrupted(completions, **kwargs):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        RewardGuard(interrupted)(prompts=["p"], completions=["a"])
