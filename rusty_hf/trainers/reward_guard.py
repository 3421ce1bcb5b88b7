"""Reward functions that cannot stop a training run.

TRL's `GRPOTrainer._calculate_rewards` (and so RLOO and rusty_hf's PPO) lets an exception from a reward
function propagate: one flaky sandbox, a teacher endpoint that times out, or a bug hit by one odd
completion ends hours of training. `guard_reward_funcs` wraps each function so that a failure scores
that batch `None` for this function (TRL's "no reward": the sample is left out of this function's
statistics, and a completion that every function left out gets no learning signal), logs the
exception once per kind, and counts it:

    from rusty_hf.rewards import get_reward_funcs
    from rusty_hf.trainers.reward_guard import guard_reward_funcs

    trainer = GRPOTrainer(..., reward_funcs=guard_reward_funcs(get_reward_funcs(["execution"])))

Each call that fails logs the metric `rewards/<name>/failures` (completions scored None by a failure in
that call, through TRL's `log_metric`); `RewardGuard.failures` keeps the run's total. A returned list of
the wrong length, or an entry that is not a number or None, counts as a failure too, with a message
naming the fix. `KeyboardInterrupt` and `SystemExit` still stop the run. Async reward functions stay
async (TRL runs them concurrently). `__name__` is kept, so TRL's per-function logs keep their names.
"""

from __future__ import annotations

import functools
import logging
import math
import numbers
from collections.abc import Callable, Sequence
from typing import Any

from trl.trainer.utils import get_callable_name, is_async_callable

logger = logging.getLogger(__name__)

RewardFunc = Callable[..., Any]


class RewardGuard:
    """Wraps one reward function; see the module docstring. Call it exactly like the function."""

    def __init__(self, func: RewardFunc):
        functools.update_wrapper(self, func)  # first: it copies the wrapped object's __dict__ over ours
        self.func = func
        self.name = self.__name__ = get_callable_name(func)  # the name TRL logs this reward under
        self.failures = 0  # completions scored None because of a failure, over the whole run
        self._reported: set[str] = set()  # failure kinds already logged with a traceback

    def __call__(self, prompts: Sequence[Any] = (), completions: Sequence[Any] = (), **kwargs: Any) -> list:
        try:
            rewards = self.func(prompts=prompts, completions=completions, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any failure of a reward must leave training running
            return self._failed(len(completions), exc, kwargs.get("log_metric"))
        return self._checked(rewards, len(completions), kwargs.get("log_metric"))

    def _checked(self, rewards: Any, expected: int, log_metric: Callable | None) -> list:
        problem = _shape_problem(rewards, expected)
        if problem is not None:
            return self._failed(
                expected, TypeError(f"{problem}; return one float (or None) per completion"), log_metric
            )
        _log(log_metric, f"rewards/{self.name}/failures", 0.0)
        return list(rewards)

    def _failed(self, count: int, exc: BaseException, log_metric: Callable | None) -> list[None]:
        self.failures += count
        kind = f"{type(exc).__name__}: {exc}"
        if kind not in self._reported:
            self._reported.add(kind)
            logger.warning(
                "reward function %r failed; its %d rewards in this batch are None and training goes on "
                "(further identical failures are only counted in rewards/%s/failures): %s",
                self.name,
                count,
                self.name,
                kind,
                exc_info=exc,
            )
        _log(log_metric, f"rewards/{self.name}/failures", float(count))
        return [None] * count


class AsyncRewardGuard(RewardGuard):
    """The guard for an `async def` reward function (TRL awaits these concurrently)."""

    async def __call__(self, prompts: Sequence[Any] = (), completions: Sequence[Any] = (), **kwargs: Any) -> list:
        try:
            rewards = await self.func(prompts=prompts, completions=completions, **kwargs)
        except Exception as exc:  # noqa: BLE001
            return self._failed(len(completions), exc, kwargs.get("log_metric"))
        return self._checked(rewards, len(completions), kwargs.get("log_metric"))


def guard_reward_func(func: RewardFunc) -> RewardGuard:
    """Wrap one reward function (idempotent). Reward *models* (`nn.Module`) are returned unchanged:
    TRL calls them itself, and they fail like any other forward pass."""
    if isinstance(func, RewardGuard) or not callable(func) or _is_module(func):
        return func
    return AsyncRewardGuard(func) if is_async_callable(func) else RewardGuard(func)


def guard_reward_funcs(funcs: RewardFunc | Sequence[RewardFunc]) -> list[RewardGuard]:
    """Wrap every reward function of `funcs` (one or a list) with `guard_reward_func`; reward-model ids
    (strings) and modules pass through for TRL to load and run."""
    if isinstance(funcs, str) or not isinstance(funcs, (list, tuple)):  # one function, or a reward-model id
        funcs = [funcs]
    return [guard_reward_func(f) for f in funcs]


def _shape_problem(rewards: Any, expected: int) -> str | None:
    if isinstance(rewards, (str, bytes)) or not isinstance(rewards, Sequence):
        return f"returned {type(rewards).__name__}, not a list"
    if len(rewards) != expected:
        return f"returned {len(rewards)} rewards for {expected} completions"
    for value in rewards:
        if value is not None and not isinstance(value, numbers.Real):
            return f"returned a {type(value).__name__} ({value!r}) among the rewards"
        if value is not None and math.isinf(float(value)):
            return f"returned an infinite reward ({value!r})"
    return None


def _is_module(obj: Any) -> bool:
    try:
        import torch

        return isinstance(obj, torch.nn.Module)
    except ImportError:  # pragma: no cover - torch is a hard dependency of the trainers
        return False


def _log(log_metric: Callable | None, name: str, value: float) -> None:
    if log_metric is not None:
        log_metric(name, value)


__all__ = ["AsyncRewardGuard", "RewardGuard", "guard_reward_func", "guard_reward_funcs"]
