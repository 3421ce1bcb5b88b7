"""What the RL recipes (GRPO, RLOO, PPO) share: the task prompts and the reward functions by name.

    from rusty_hf.training.rl_setup import build_task_dataset, build_reward_funcs, check_rl_arguments
    check_rl_arguments(script_args, training_args)     # before anything loads: one line naming the fix
    dataset = build_task_dataset(script_args)          # prompt (chat), tests, language, difficulty, ...; num_terminal
                                                       # adds terminal requests (check, fixture columns)
    reward_funcs = build_reward_funcs(script_args)      # guarded: a raising reward never stops training
    rollout_func = served_rollouts(script_args, training_args, dataset)  # GRPO/PPO: terminal prompts as served

The prompts carry the Rusty persona (`RUSTY_SYSTEM_PROMPT`), the same system message the SFT data
uses, so the policy starts RL already speaking the JSON action protocol.
"""

from __future__ import annotations

from collections.abc import Callable

import datasets

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards import get_reward_funcs, require_sandbox_for
from rusty_hf.sandbox import require_isolation
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT
from rusty_hf.errors import UserError


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
    if getattr(script_args, "num_terminal", 0):
        dataset = datasets.concatenate_datasets([_with_terminal_columns(dataset), terminal_dataset(script_args, dataset.features)])
    if len(dataset) == 0:
        raise UserError(
            f"no {split} tasks for languages {script_args.task_languages} with difficulty <= "
            f"{script_args.max_difficulty}. Fix: widen task_languages or max_difficulty"
        )
    return dataset


TERMINAL_COLUMNS = ("check", "final_check", "fixture")


def _with_terminal_columns(tasks: datasets.Dataset) -> datasets.Dataset:
    for column in TERMINAL_COLUMNS:
        tasks = tasks.add_column(column, [""] * len(tasks))
    return tasks


def terminal_dataset(script_args: RLScriptArguments, task_features: datasets.Features) -> datasets.Dataset:
    """``num_terminal`` training terminal requests as RL rows beside the tasks (one turn each: the
    ``terminal`` reward judges the first action; ``language`` "terminal" makes the code rewards skip them).
    ``terminal_words_share`` of them ask for an answer in words (`answered_in_words`): drawn evenly, ~3 of 28 did, and
    GRPO beside 113 coding tasks turned acknowledgements and who-are-you into commands."""
    from rusty_hf.data.terminal.dataset import answered_in_words, training_requests

    n, seed = script_args.num_terminal, script_args.dialog_seed
    words = round(n * script_args.terminal_words_share)
    requests = training_requests(n - words, seed=seed, multi_turn_share=0.0)
    if words:
        requests += training_requests(words, seed=seed, intents=answered_in_words(), multi_turn_share=0.0)
    rows = []
    for request in requests:
        row = request.row()
        rows.append({"prompt": row["prompt"], "tests": "", "solution": "", "language": "terminal", "difficulty": 1,
                     "name": f"terminal/{request.intent}", "tags": ["terminal"], "entry_point": "", "split": "train",
                     **{column: row[column] for column in TERMINAL_COLUMNS}})  # fmt: skip
    missing = sorted(set(task_features) - set(rows[0]))
    if missing:
        raise RuntimeError(f"terminal RL rows lack the task columns {missing}: update rl_setup.terminal_dataset")
    features = datasets.Features({**task_features, **{c: datasets.Value("string") for c in TERMINAL_COLUMNS}})
    return datasets.Dataset.from_list([{k: r[k] for k in features} for r in rows]).cast(features)


def served_rollouts(script_args: RLScriptArguments, training_args: object, dataset: datasets.Dataset):
    """TRL's ``rollout_func`` that samples the terminal prompts as they are served (`ServedRollouts`), or None:
    with ``served_decoding`` off, without terminal prompts, or with an environment (whose tool loop samples).

    Raises:
        UserError: with vLLM generation, which samples without rusty_hf's processors."""
    if not (script_args.served_decoding and getattr(script_args, "num_terminal", 0)) or script_args.environment:
        return None
    if getattr(training_args, "use_vllm", False):
        raise UserError("use_vllm is set and served_decoding samples the terminal prompts with rusty_hf's decoder, "
                        "which vLLM's sampler does not run. Fix: --served_decoding false, or --use_vllm false.")
    from rusty_hf.trainers.served_rollouts import ServedRollouts

    return ServedRollouts(dataset, script_args.terminal_cache_dir)


def check_rl_arguments(script_args: RLScriptArguments, training_args: object, multi_turn_ok: bool = True,
                       model_name_or_path: str | None = None) -> None:  # fmt: skip
    """What the RL configs cannot check alone, before anything loads: one weight per reward function, a
    multi-turn environment only where the trainer has one (``multi_turn_ok``: GRPO's environment_factory),
    a KL term (``beta``) only with a checkpoint to stay near (``model_name_or_path``; unset: a fresh model), and
    a sandbox that isolates model code where a reward or the environment runs it (``rusty_hf.sandbox.isolation``)."""
    if not model_name_or_path and getattr(training_args, "beta", 0.0):
        raise UserError(f"beta: {training_args.beta} keeps the policy near the checkpoint it starts from, and a fresh model "
                        "(model_name_or_path unset) has none. Fix: pass --model_name_or_path outputs/tiny-sft (the SFT "
                        "checkpoint), or --beta 0.")
    if script_args.environment is not None and not multi_turn_ok:
        raise UserError(f"environment: {script_args.environment} needs GRPO's environment_factory. Fix: run it with "
                        "recipes/grpo.py, or unset environment.")
    weights = getattr(training_args, "reward_weights", None)
    if weights is not None and script_args.environment is None and len(weights) != len(script_args.reward_funcs):
        raise UserError(f"reward_weights has {len(weights)} values for {len(script_args.reward_funcs)} reward functions "
                        f"{script_args.reward_funcs}. Fix: give one weight per reward function, or leave reward_weights unset.")
    # Model code runs at every step: without bubblewrap (and without the opt-in) refuse now, in one line naming
    # the fix, instead of at the first reward (isolation.py); with the opt-in, the run's log names it here.
    if script_args.environment is not None:
        require_isolation()  # the environment runs the model's commands
    require_sandbox_for(script_args.reward_funcs)


def build_reward_funcs(script_args: RLScriptArguments) -> list[Callable[..., list[float | None]]]:
    """The registry's reward functions named in ``reward_funcs``, each wrapped so that an exception
    scores its batch None (logged and counted) instead of stopping the run."""
    from rusty_hf.rewards import get_terminal_reward
    from rusty_hf.trainers.reward_guard import guard_reward_funcs

    funcs = get_reward_funcs(script_args.reward_funcs)
    funcs = [get_terminal_reward(script_args.terminal_cache_dir) if name == "terminal" else func
             for name, func in zip(script_args.reward_funcs, funcs)]  # its fixtures where the recipe keeps them
    return guard_reward_funcs(funcs)
