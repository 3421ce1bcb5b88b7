"""The SFT mix: synthetic protocol dialogs plus the training-split tasks answered with EDIT actions.

    from rusty_hf.data.sft_data import build_sft_dataset
    dataset = build_sft_dataset(num_dialogs=1024, task_repeats=4)   # a `messages` column for SFTTrainer

Every row is ``[system, user, assistant]`` with the Rusty persona as the system prompt and exactly
one JSON action as the assistant turn, so the loss (TRL's ``assistant_only_loss``) teaches both the
protocol and code:

- synthetic dialogs (`rusty_hf.data.dialogs`): MSG answers, real shell commands as CMD, small EDITs;
- task dialogs: the prompt of every *training-split* task in ``tasks/`` (the same user message the
  RL recipes and the evaluation send), answered with ``{"action": "EDIT", "path": "solution.py",
  "content": <reference solution>}``. This is the code corpus of the mix. Held-out tasks are never
  read here: `task_dialogs` refuses ``split="test"``, so evaluation numbers stay honest.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import datasets

from rusty_hf.data.dialogs import Message, synthetic_dialogs
from rusty_hf.data.tasks import DEFAULT_ROOT, LANGUAGES, build_messages, iter_task_folders, read_task
from rusty_hf.protocol.actions import action_json
from rusty_hf.protocol.pointers import mark_conversation
from rusty_hf.sandbox import require_isolation
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT


def task_dialogs(
    languages: tuple[str, ...] | list[str] = ("python", "rust"),
    root: str | Path | None = None,
    split: str = "train",
) -> list[list[Message]]:
    """One dialog per training-split task: the task prompt answered by an EDIT with its solution.

    Args:
        languages: task languages to include.
        root: the tasks directory (default: the repository's ``tasks/``).
        split: must be "train"; held-out tasks never become training data.

    Raises:
        ValueError: for ``split != "train"`` or an unknown language.
    """
    if split != "train":
        raise ValueError(f"SFT data only ever uses the training split of the tasks, got split={split!r}")
    unknown = sorted(set(languages) - set(LANGUAGES))
    if unknown:
        raise ValueError(f"unknown task language(s) {unknown}; valid: {sorted(LANGUAGES)}")
    folders = iter_task_folders(Path(root) if root is not None else DEFAULT_ROOT, list(languages))
    dialogs = []
    for task in (read_task(folder) for folder in folders):
        if task.split != "train":
            continue
        edit = {"action": "EDIT", "path": f"solution{LANGUAGES[task.language]}", "content": task.solution}
        messages = build_messages(task, system_prompt=RUSTY_SYSTEM_PROMPT)
        dialogs.append(messages + [{"role": "assistant", "content": action_json(edit)}])
    return dialogs


def terminal_dialogs(n: int, seed: int = 0, multi_turn_share: float = 0.2, cache_dir: str | Path = "outputs/terminal_fixtures",
                     workers: int | None = None, closing_share: float = 0.0, session_share: float = 0.0,
                     closing_states_output: bool = False, session_write_share: float = 0.0,
                     session_refer_share: float = 0.0, session_missing_share: float = 0.0,
                     pointers: bool = False) -> list[list[Message]]:  # fmt: skip
    """``n`` training-split terminal requests as dialogs; multi-turn ones (and ``closing_share`` of the
    single-turn actions, which end with a closing MSG) carry the real command output. ``session_share`` x ``n``
    sessions (`training_sessions`: 4-8 requests in a row on one work dir) come beside them. ``closing_states_output``:
    a closing MSG states a short output instead of "Done." (`closing_message`), or what its case's ``closing`` says
    a long one shows, and a session may answer any command so. ``session_write_share`` of the sessions change the work
    dir before their last turn, and the turns after act on it as changed. ``session_refer_share`` of the session turns
    after one that named a file act on it again and call it "it" or "that file"; ``session_missing_share`` of them
    ask to read a file the work dir lacks, and close with the failure. ``pointers``: each request marked and each
    action pointing into it (`rusty_hf.protocol.pointers.mark_conversation`).

    The outputs are sandbox runs of the reference commands on the materialized fixtures (cached per
    fixture and command; a read runs on the fixture itself, see `checks.RUNS`), ``workers`` at a time (default:
    twice the cores, at most 8). ``benchmarks/terminal_data.py`` measures what building them costs.
    """
    from concurrent.futures import ThreadPoolExecutor

    from rusty_hf.data.terminal.dataset import session_messages, sft_messages, training_requests, training_sessions

    if multi_turn_share or closing_share or session_share:  # commands will run in the sandbox: without bubblewrap, one line now
        require_isolation()
    workers = workers or min(8, 2 * (os.cpu_count() or 1))
    requests = training_requests(n, seed=seed, multi_turn_share=multi_turn_share, closing_share=closing_share)
    with ThreadPoolExecutor(max_workers=workers) as pool, ThreadPoolExecutor(max_workers=1) as drawing:
        # The sessions are drawn while the requests' rows run: their missing-file turns wait on one sandbox run at
        # a time (each decides the turn after it), the rows keep ``workers`` runs going.
        sessions = drawing.submit(training_sessions, round(n * session_share), seed=seed, states_output=closing_states_output,
                                  write_share=session_write_share, cache_dir=cache_dir, workers=workers,
                                  refer_share=session_refer_share, missing_share=session_missing_share,
                                  ) if session_share else None  # fmt: skip
        rows = list(pool.map(lambda r: sft_messages(r, cache_dir, closing_states_output), requests))
        sessions = sessions.result() if sessions else []
        rows += list(pool.map(lambda s: session_messages(s, cache_dir, closing_states_output), sessions))
    return [mark_conversation(messages) for messages in rows] if pointers else rows


def build_sft_dataset(
    num_dialogs: int,
    seed: int = 0,
    task_repeats: int = 4,
    task_languages: tuple[str, ...] | list[str] = ("python", "rust"),
    tasks_root: str | Path | None = None,
    num_terminal: int = 0,
    terminal_multi_turn_share: float = 0.2,
    terminal_cache_dir: str | Path = "outputs/terminal_fixtures",
    terminal_closing_share: float = 0.0,
    terminal_session_share: float = 0.0,
    terminal_closing_states_output: bool = False,
    terminal_session_write_share: float = 0.0,
    terminal_session_refer_share: float = 0.0,
    terminal_session_missing_share: float = 0.0,
    terminal_pointers: bool = False,
) -> datasets.Dataset:
    """The shuffled SFT mix: synthetic dialogs, terminal requests, and every training task ``task_repeats`` times.

    Returns:
        A Dataset with one column, ``messages`` (conversational, as TRL's SFTTrainer expects).
    """
    if task_repeats < 0:
        raise ValueError(f"task_repeats must be >= 0, got {task_repeats}")
    rows = synthetic_dialogs(num_dialogs, seed=seed)
    if num_terminal:
        rows += terminal_dialogs(num_terminal, seed, terminal_multi_turn_share, terminal_cache_dir,
                                 closing_share=terminal_closing_share, session_share=terminal_session_share,
                                 closing_states_output=terminal_closing_states_output,
                                 session_write_share=terminal_session_write_share,
                                 session_refer_share=terminal_session_refer_share,
                                 session_missing_share=terminal_session_missing_share, pointers=terminal_pointers)
    if task_repeats:
        rows += task_dialogs(task_languages, root=tasks_root) * task_repeats
    random.Random(seed).shuffle(rows)
    return datasets.Dataset.from_list([{"messages": messages} for messages in rows])
