"""RL on terminal requests beside the tasks: one dataset, and each reward scores only its own rows."""

import json

import pytest

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.training.rl_setup import build_reward_funcs, build_task_dataset


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    args = RLScriptArguments(task_languages=["python"], num_terminal=12, reward_funcs=["execution", "protocol", "terminal"],
                             terminal_cache_dir=str(tmp_path_factory.mktemp("fixtures")))  # fmt: skip
    return args, build_task_dataset(args)


def test_terminal_rows_join_the_tasks(mixed):
    _, dataset = mixed
    terminal = [row for row in dataset if row["language"] == "terminal"]
    tasks = [row for row in dataset if row["language"] == "python"]
    assert len(terminal) == 12 and tasks
    assert all(row["check"] and row["fixture"] and not row["tests"] for row in terminal)
    assert all(row["check"] == "" and row["tests"] for row in tasks)


def test_a_share_of_the_terminal_rows_asks_for_words(tmp_path):
    """terminal_words_share draws that share among the requests answered by a MSG; the others are the rows the
    share 0 draws first. Drawn evenly, ~3 of 28 asked for words and GRPO turned such requests into commands."""
    from rusty_hf.data.terminal.dataset import answered_in_words

    def names(share):
        args = RLScriptArguments(task_languages=["python"], num_terminal=12, terminal_words_share=share,
                                 reward_funcs=["terminal"], terminal_cache_dir=str(tmp_path))  # fmt: skip
        return [row["name"].split("/", 1)[1] for row in build_task_dataset(args) if row["language"] == "terminal"]

    plain, worded = names(0.0), names(0.25)
    assert worded[:9] == plain[:9] and set(worded[9:]) <= set(answered_in_words()) and len(worded) == 12
    assert {"acknowledge", "identity", "refuse_destructive"} <= set(answered_in_words())
    with pytest.raises(ValueError, match="terminal_words_share"):
        RLScriptArguments(task_languages=["python"], num_terminal=12, terminal_words_share=1.5, reward_funcs=["terminal"])


def test_each_reward_scores_only_its_rows(mixed):
    args, dataset = mixed
    execution, protocol, terminal = build_reward_funcs(args)
    task = next(row for row in dataset if row["language"] == "python")
    terminal_rows = [row for row in dataset if row["language"] == "terminal"]
    # a request answered by a MSG where the draw holds one (the MSG completion below then fits its check); any other
    # terminal request is scored too, 0 for the wrong action type
    request = next((row for row in terminal_rows if '"msg"' in row["check"]), terminal_rows[0])
    rows = [task, request]
    completion = json.dumps({"action": "MSG", "message": "Rusty. No."})
    columns = {key: [row[key] for row in rows] for key in ("tests", "language", "check", "final_check", "fixture")}
    completions = [completion] * 2
    assert execution(completions=completions, **columns)[1] is None
    scores = terminal(completions=completions, **columns)
    assert scores[0] is None and scores[1] is not None
    assert all(score is not None for score in protocol(completions=completions, **columns))


def test_a_completion_trl_parsed_into_a_tool_call_scores_as_its_action(tiny_tokenizer):
    """With Rusty's response template (saved by SFT), GRPO hands the rewards tool calls, not text."""
    from trl.chat_template_utils import parse_response

    from rusty_hf.agent.tool_calling import enable_tool_calling
    from rusty_hf.protocol.reward import protocol_reward
    from rusty_hf.rewards import execution_reward

    tokenizer = enable_tool_calling(tiny_tokenizer)
    action = json.dumps({"action": "EDIT", "path": "solution.py", "content": "def add(a, b):\n    return a + b\n"})
    ids = tokenizer(" " + action, add_special_tokens=False)["input_ids"] + [tokenizer.convert_tokens_to_ids("<|end|>")]
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "write add"}], add_generation_prompt=True,
                                           tokenize=True, return_dict=True)["input_ids"]  # fmt: skip
    parsed = [parse_response(tokenizer, ids, prefix=prompt)]  # as GRPOTrainer decodes a completion
    assert parsed[0].get("tool_calls"), parsed  # the case that scored 0 before: no text content at all
    tests = "from solution import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    assert protocol_reward([parsed]) == protocol_reward([action]) == [1.0]
    assert execution_reward([parsed], tests=[tests], language=["python"]) == [1.0]
