"""The SFT mix: task dialogs answer with EDIT actions, and held-out tasks never become training data."""

import json

import pytest

from rusty_hf.data.sft_data import build_sft_dataset, task_dialogs
from rusty_hf.data.tasks import load_tasks
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT


def test_held_out_tasks_never_appear_in_the_sft_data():
    held_out = load_tasks(split="test")
    assert len(held_out) > 0
    texts = [json.dumps(row["messages"]) for row in build_sft_dataset(num_dialogs=64, task_repeats=1)]
    corpus = "\n".join(texts)
    for row in held_out:
        assert json.dumps(row["solution"])[1:-1] not in corpus, row["name"]
        assert json.dumps(row["prompt"][-1]["content"])[1:-1] not in corpus, row["name"]


def test_every_training_task_is_answered_by_an_edit_with_its_solution():
    train = {row["solution"]: row for row in load_tasks(split="train")}
    dialogs = task_dialogs()
    assert len(dialogs) == len(train)
    for system, user, assistant in dialogs:
        assert system["content"] == RUSTY_SYSTEM_PROMPT and user["role"] == "user"
        action = json.loads(assistant["content"])
        assert action["action"] == "EDIT" and action["content"] in train
        assert action["path"] == "solution" + (".py" if train[action["content"]]["language"] == "python" else ".rs")


def test_task_dialogs_refuse_the_held_out_split():
    with pytest.raises(ValueError, match="training split"):
        task_dialogs(split="test")


def test_the_mix_has_the_requested_size_and_is_reproducible():
    n_tasks = len(task_dialogs(["python"]))
    first = build_sft_dataset(num_dialogs=10, seed=3, task_repeats=2, task_languages=["python"])
    second = build_sft_dataset(num_dialogs=10, seed=3, task_repeats=2, task_languages=["python"])
    assert len(first) == 10 + 2 * n_tasks
    assert first["messages"] == second["messages"]
