"""rusty_hf.agent.env.CodingEnv: episodes in sandboxed work dirs, CMD/EDIT tools, execution reward; GRPO runs it."""

import copy
import functools
import os
from pathlib import Path

import pytest
import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer
from trl.chat_template_utils import parse_response

from rusty_hf.agent.env import CodingEnv
from rusty_hf.agent.tool_calling import enable_tool_calling
from rusty_hf.data.tasks import load_tasks
from tests.agent.conftest import ADD_TESTS, SYSTEM_PROMPT


@pytest.fixture(scope="module")
def task():
    return load_tasks(language="python", split="train")[0]


@pytest.fixture
def env(task):
    env = CodingEnv(timeout=10)
    env.reset(**task)
    return env


def test_reset_gives_instructions_and_a_fresh_work_dir_with_the_tests(task):
    env = CodingEnv()
    observation = env.reset(**task)
    first = env.workspace.root
    assert "solution.py" in observation and "EDIT" in observation
    assert (first / "test_solution.py").read_text() == task["tests"]
    env.reset(**task)
    assert env.workspace.root != first and not first.exists()  # the old episode's dir is gone


def test_reset_without_tests_names_the_loader(task):
    with pytest.raises(ValueError, match="load_tasks"):
        CodingEnv().reset(prompt=task["prompt"])


def test_reference_solution_written_by_edit_earns_full_reward(env, task):
    assert env.edit_file("solution.py", task["solution"]).startswith("wrote solution.py")
    assert env.get_reward() == pytest.approx(1.0)


def test_code_that_parses_but_fails_earns_the_parse_credit(env, task):
    env.edit_file("solution.py", f"def {task['entry_point']}(*args):\n    return None\n")
    assert env.get_reward() == pytest.approx(0.3)


def test_no_solution_earns_zero(env):
    assert env.get_reward() == 0.0


def test_run_command_sees_edits_and_runs_the_tests(env, task):
    env.edit_file("solution.py", task["solution"])
    output = env.run_command("python3 -m pytest -q -p no:cacheprovider")
    assert "passed" in output and "[exit code 0]" in output


def test_edit_outside_the_work_dir_is_refused_not_raised(env, tmp_path):
    message = env.edit_file(os.path.join("..", "evil.py"), "x = 1")
    assert "refused" in message and not (env.workspace.root.parent / "evil.py").exists()


def test_other_languages_are_not_scored(task):
    env = CodingEnv()
    env.reset(tests="#[test] fn t() {}", language="rust")
    assert env.get_reward() is None


def test_trl_dispatch_of_a_parsed_edit_reaches_the_tool(env, task, tiny_tokenizer):
    """The path TRL takes: parse the generation, look the tool up by __name__, call it with the arguments."""
    tok = enable_tool_calling(copy.deepcopy(tiny_tokenizer))
    text = '{"action": "EDIT", "path": "solution.py", "content": ' + __import__("json").dumps(task["solution"]) + "}<|end|>"
    call = parse_response(tok, tok.encode(text, add_special_tokens=False), prefix=[])["tool_calls"][0]["function"]
    tools = {method.__name__: method for method in (env.run_command, env.edit_file)}
    tools[call["name"]](**call["arguments"])
    assert env.get_reward() == pytest.approx(1.0)


@pytest.mark.slow
def test_grpo_rollouts_call_the_tools_and_are_rewarded_by_the_environment(tmp_path, rusty_checkpoint):
    """Real multi-turn GRPO: the memorised model answers "write add" with an EDIT of solution.py, TRL
    parses it into a tool call, CodingEnv writes the file, and get_reward runs the tests on it."""
    torch.manual_seed(0)
    tok = enable_tool_calling(AutoTokenizer.from_pretrained(rusty_checkpoint))
    model = AutoModelForCausalLM.from_pretrained(rusty_checkpoint)
    # TRL's tool loop reads the context ceiling from config.max_position_embeddings; RWKV has no positional
    # limit and TinyRWKVConfig defines none yet (reported: it should carry one for multi-turn GRPO).
    model.config.max_position_embeddings = getattr(model.config, "max_position_embeddings", None) or 4096
    prompt = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "write add"}]
    data = Dataset.from_list([{"prompt": prompt, "tests": ADD_TESTS, "language": "python"}] * 2)
    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"), max_steps=2, per_device_train_batch_size=2, num_generations=2,
        max_completion_length=64, max_tool_calling_iterations=1, temperature=0.2, learning_rate=1e-4, logging_steps=1,
        report_to="none", use_cpu=True, save_strategy="no", activation_checkpointing=False,
    )
    trainer = GRPOTrainer(
        model=model, args=args, train_dataset=data, processing_class=tok,
        environment_factory=functools.partial(CodingEnv, instructions=None),  # keep the memorised prompt as is
    )
    trainer.train()
    logs = [log for log in trainer.state.log_history if "rewards/CodingEnv/mean" in log]
    assert len(logs) == 2
    assert logs[0]["tools/call_frequency"] > 0
    assert max(log["rewards/CodingEnv/mean"] for log in logs) > 0.9  # solution.py written through the tool passes


def test_agent_recipe_config_selects_the_coding_environment():
    from trl import ModelConfig, TrlParser

    from rusty_hf.training.arguments import RLScriptArguments

    script_args, training_args, _ = TrlParser((RLScriptArguments, GRPOConfig, ModelConfig)).parse_args_and_config(
        ["--config", str(Path(__file__).parents[2] / "recipes/tiny/grpo_agent.yaml")]
    )
    assert script_args.environment == "coding" and script_args.reward_funcs == []
    assert script_args.task_languages == ["python"] and training_args.max_tool_calling_iterations >= 1
