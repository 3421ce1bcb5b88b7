"""Reward functions for TRL trainers, chosen by name.

Every reward is a plain TRL reward function ``f(completions, **columns) -> list[float | None]``
whose ``__name__`` names it in TRL's logs. Recipes list them by name::

    reward_funcs: [execution]

Usage::

    from rusty_hf.rewards import get_reward_funcs
    GRPOTrainer(..., reward_funcs=get_reward_funcs(["execution"]))

One sub-package per kind of verdict, each registered here: ``python_exec/`` (``execution``: the
tests run on the host against the sandboxed solution), ``rust/`` (``rust``: rustc, clippy, the host's
test verdicts, the syntax tree), ``teacher/`` (``teacher``: an LLM judge). ``terminal.py`` judges a
terminal action on its fixture, ``protocol`` lives with the protocol (`rusty_hf.protocol.reward`), and
``extract.py`` takes the code or the action out of a completion for all of them. A reward is added to
``REWARD_FUNCS``, or to ``REWARD_FACTORIES`` when it is built from configuration at recipe start
(``teacher``).
"""

from __future__ import annotations

from collections.abc import Callable

from rusty_hf.rewards.python_exec import execution_reward, get_execution_reward
from rusty_hf.rewards.rust import get_rust_reward, rust_reward
from rusty_hf.rewards.teacher import get_teacher_reward, teacher_reward_from_env
from rusty_hf.rewards.terminal import get_terminal_reward, terminal_reward
from rusty_hf.protocol.reward import protocol_reward
from rusty_hf.sandbox import require_isolation
from rusty_hf.errors import UserError

REWARD_FUNCS: dict[str, Callable[..., list[float | None]]] = {
    "execution": execution_reward,
    "rust": rust_reward,
    "protocol": protocol_reward,
    "terminal": terminal_reward,
}

# Rewards built only when a recipe names them: they need configuration (the teacher reads
# RUSTY_TEACHER_* variables), and a missing setting must fail at recipe start, saying what to set.
REWARD_FACTORIES: dict[str, Callable[[], Callable[..., list[float | None]]]] = {
    "teacher": teacher_reward_from_env,
}

# Rewards that run model-written code or commands in rusty_hf.sandbox, which refuses without bubblewrap.
SANDBOXED_REWARDS = frozenset({"execution", "rust", "terminal"})


def require_sandbox_for(names: list[str]) -> None:
    """At start-up: raise the sandbox's one-line `SetupError` (install bubblewrap, or the opt-in) when a
    reward in ``names`` runs model code and this host cannot isolate it; do nothing otherwise."""
    if SANDBOXED_REWARDS.intersection([names] if isinstance(names, str) else names):
        require_isolation()


def get_reward_funcs(names: list[str]) -> list[Callable[..., list[float | None]]]:
    """Return the reward functions registered under ``names``, in order.

    Raises:
        ValueError: for an unknown name, listing the valid ones.
    """
    if isinstance(names, str):
        names = [names]
    valid = sorted({*REWARD_FUNCS, *REWARD_FACTORIES})
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise UserError(f"unknown reward function(s) {unknown}. Fix: choose from {valid}")
    return [REWARD_FUNCS[n] if n in REWARD_FUNCS else REWARD_FACTORIES[n]() for n in names]


__all__ = [
    "REWARD_FACTORIES",
    "REWARD_FUNCS",
    "SANDBOXED_REWARDS",
    "execution_reward",
    "get_execution_reward",
    "get_reward_funcs",
    "get_rust_reward",
    "get_teacher_reward",
    "get_terminal_reward",
    "protocol_reward",
    "require_sandbox_for",
    "rust_reward",
    "terminal_reward",
]
