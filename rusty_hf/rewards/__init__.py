"""Reward functions for TRL trainers, chosen by name.

Every reward is a plain TRL reward function ``f(completions, **columns) -> list[float | None]``
whose ``__name__`` names it in TRL's logs. Recipes list them by name::

    reward_funcs: [execution]

Usage::

    from rusty_hf.rewards import get_reward_funcs
    GRPOTrainer(..., reward_funcs=get_reward_funcs(["execution"]))

Later modules (rust, teacher, protocol) add themselves to ``REWARD_FUNCS`` here.
"""

from __future__ import annotations

from collections.abc import Callable

from rusty_hf.rewards.execution import execution_reward, get_execution_reward

REWARD_FUNCS: dict[str, Callable[..., list[float | None]]] = {
    "execution": execution_reward,
}


def get_reward_funcs(names: list[str]) -> list[Callable[..., list[float | None]]]:
    """Return the reward functions registered under ``names``, in order.

    Raises:
        ValueError: for an unknown name, listing the valid ones.
    """
    if isinstance(names, str):
        names = [names]
    unknown = [n for n in names if n not in REWARD_FUNCS]
    if unknown:
        raise ValueError(f"unknown reward function(s) {unknown}; valid names: {sorted(REWARD_FUNCS)}")
    return [REWARD_FUNCS[n] for n in names]


__all__ = ["REWARD_FUNCS", "execution_reward", "get_execution_reward", "get_reward_funcs"]
