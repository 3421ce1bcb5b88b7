"""The RL recipes (GRPO, GSPO, RLOO) end to end on a tiny model and a two-task suite."""

import csv
import json

import pytest
from trl import GRPOConfig, ModelConfig, RLOOConfig, TrlParser

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.training.rl_setup import build_reward_funcs, build_task_dataset
from rusty_hf.errors import UserError

pytestmark = pytest.mark.slow

TASKS = {
    "add_two": ("Write `add_two(x: int) -> int` returning x + 2.", "def add_two(x):\n    return x + 2\n",
                "from solution import add_two\n\ndef test_add():\n    assert add_two(1) == 3\n", 1),
    "negate": ("Write `negate(x: int) -> int` returning -x.", "def negate(x):\n    return -x\n",
               "from solution import negate\n\ndef test_negate():\n    assert negate(2) == -2\n", 2),
}


@pytest.fixture(scope="module")
def tiny_tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("tasks")
    for name, (prompt, solution, tests, difficulty) in TASKS.items():
        folder = root / "python" / name
        folder.mkdir(parents=True)
        (folder / "prompt.md").write_text(prompt)
        (folder / "solution.py").write_text(solution)
        (folder / "tests.py").write_text(tests)
        meta = {"entry_point": name, "difficulty": difficulty, "tags": ["math"], "split": "train"}
        (folder / "meta.json").write_text(json.dumps(meta))
    return root


def _parse(config_cls, yaml: str, args: list[str]):
    parser = TrlParser((RLScriptArguments, config_cls, ModelConfig))
    return parser.parse_args_and_config(args=["--config", yaml, *args, "--use_cpu", "true", "--report_to", "none"])


def _tiny_args(tmp_path, tiny_tasks, tokenizer_dir) -> list[str]:
    return [
        "--model_name_or_path", "", "--beta", "0", "--tokenizer_name_or_path", str(tokenizer_dir), "--tasks_dir", str(tiny_tasks),
        "--d_embed", "16", "--d_hidden", "32", "--n_layers", "1", "--output_dir", str(tmp_path / "out"),
        "--max_steps", "2", "--per_device_train_batch_size", "4", "--num_generations", "2",
        "--max_completion_length", "8", "--logging_steps", "1", "--num_terminal", "2",
        "--terminal_cache_dir", str(tmp_path / "fixtures"),
    ]


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory, tiny_tokenizer):
    path = tmp_path_factory.mktemp("tok")
    tiny_tokenizer.save_pretrained(path)
    return path


def test_grpo_recipe_trains_logs_every_reward_and_writes_a_hub_ready_folder(tmp_path, tiny_tasks, tokenizer_dir):
    from recipes.grpo import main

    trainer = main(*_parse(GRPOConfig, "recipes/tiny/grpo.yaml", _tiny_args(tmp_path, tiny_tasks, tokenizer_dir)))
    logged = trainer.state.log_history[0]
    assert {"rewards/execution_reward/mean", "rewards/protocol_reward/mean", "execution/parse_rate"} <= set(logged)
    out = tmp_path / "out"
    for name in ("model.safetensors", "modeling_tiny_rwkv.py", "tokenizer.json", "README.md", "training_curves.png"):
        assert (out / name).is_file(), name
    with open(out / "rl_training.log") as f:
        rows = list(csv.DictReader(f))
    assert [row["iteration"] for row in rows] == ["1", "2"]
    assert "execution_reward" in rows[0] and "protocol_reward" in rows[0]


def test_gspo_is_grpo_with_sequence_level_importance_sampling(tmp_path, tiny_tasks, tokenizer_dir):
    from recipes.grpo import main

    args = _tiny_args(tmp_path, tiny_tasks, tokenizer_dir) + ["--importance_sampling_level", "sequence", "--max_steps", "1"]
    trainer = main(*_parse(GRPOConfig, "recipes/tiny/grpo.yaml", args))
    assert trainer.importance_sampling_level == "sequence" and trainer.state.global_step == 1


def test_rloo_recipe_trains_with_the_same_rewards(tmp_path, tiny_tasks, tokenizer_dir):
    from recipes.rloo import main

    trainer = main(*_parse(RLOOConfig, "recipes/tiny/rloo.yaml", _tiny_args(tmp_path, tiny_tasks, tokenizer_dir)))
    assert trainer.state.global_step == 2
    assert "rewards/protocol_reward/mean" in trainer.state.log_history[0]


def test_an_unknown_reward_name_fails_before_training_with_the_valid_names(tiny_tasks):
    with pytest.raises(ValueError, match="valid names"):
        build_reward_funcs(RLScriptArguments(reward_funcs=["execution", "vibes"], tasks_dir=str(tiny_tasks)))


def test_a_kl_term_on_a_fresh_model_fails_before_loading_and_names_the_fix(tmp_path, tiny_tasks, tokenizer_dir):
    from recipes.grpo import main

    args = _tiny_args(tmp_path, tiny_tasks, tokenizer_dir)
    at = args.index("--beta")
    del args[at : at + 2]
    with pytest.raises(UserError, match="--model_name_or_path outputs/tiny-sft.*--beta 0"):
        main(*_parse(GRPOConfig, "recipes/tiny/grpo.yaml", args))  # the recipe's beta: 0.1, no checkpoint
    assert not (tmp_path / "out").exists()


def test_reward_functions_keep_their_names_for_trl_logs():
    funcs = build_reward_funcs(RLScriptArguments(reward_funcs=["execution", "protocol"]))
    assert [f.__name__ for f in funcs] == ["execution_reward", "protocol_reward"]


def test_task_filters_that_leave_nothing_fail_with_the_filters(tiny_tasks):
    args = RLScriptArguments(tasks_dir=str(tiny_tasks), task_languages=["python"], task_split="test")
    with pytest.raises((ValueError, FileNotFoundError)):
        build_task_dataset(args)


def test_max_difficulty_drops_harder_tasks(tiny_tasks):
    dataset = build_task_dataset(RLScriptArguments(tasks_dir=str(tiny_tasks), task_languages=["python"], max_difficulty=1))
    assert dataset["name"] == ["add_two"]


def test_grpo_recipe_trains_multi_turn_in_the_coding_environment(tmp_path, tiny_tasks, tokenizer_dir):
    from recipes.grpo import main

    args = _tiny_args(tmp_path, tiny_tasks, tokenizer_dir) + ["--max_steps", "1", "--max_completion_length", "16"]
    trainer = main(*_parse(GRPOConfig, "recipes/tiny/grpo_agent.yaml", args))
    assert trainer.state.global_step == 1
    assert "rewards/CodingEnv/mean" in trainer.state.log_history[0]
