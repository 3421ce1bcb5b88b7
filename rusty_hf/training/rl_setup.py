"""What the RL recipes (GRPO, RLOO, PPO) share: the task prompts and the reward functions by name.

    from rusty_hf.training.rl_setup import build_task_dataset, build_reward_funcs
    dataset = build_task_dataset(script_args)          # prompt (chat), tests, language, difficulty, ...
    reward_funcs = build_reward_funcs(script_args)      # guarded: a raising reward never stops training

The prompts carry the Rusty persona (`RUSTY_SYSTEM_PROMPT`), the same system message the SFT data
uses, so the policy starts RL already speaking the JSON action protocol.
"""

from __future__ import annotations

from collections.abc import Callable

import datasets

from rusty_hf.configs import RLScriptArguments
from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards import get_reward_funcs
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT


def build_task_dataset(script_args: RLScriptArguments, split: str | None = None) -> datasets.Dataset:
    """Task prompts for RL, filtered by ``task_languages`` and ``max_difficulty``.

    Raises:
        ValueError: when the filters leave no task, naming the filters.
    """
    split = split or script_args.task_split
    parts = [
        load_tasks(root=script_args.tasks_dir, language=language, split=split, system_prompt=RUSTY_SYSTEM_PROMPT)
        for language in script_args.task_languages
    ]
    dataset = datasets.concatenate_datasets(parts) if len(parts) > 1 else parts[0]
    if script_args.max_difficulty is not None:
        dataset = dataset.filter(lambda row: row["difficulty"] <= script_args.max_difficulty)
    if len(dataset) == 0:
        raise ValueError(
            f"no {split} tasks for languages {script_args.task_languages} with difficulty <= "
            f"{script_args.max_difficulty}; widen task_languages or max_difficulty"
        )
    return dataset


def build_reward_funcs(script_args: RLScriptArguments) -> list[Callable[..., list[float | None]]]:
    """The registry's reward functions named in ``reward_funcs``, each wrapped so that an exception
    scores its batch None (logged and counted) instead of stopping the run."""
    from rusty_hf.trainers.reward_guard import guard_reward_funcs

    return guard_reward_funcs(get_reward_funcs(script_args.reward_funcs))
