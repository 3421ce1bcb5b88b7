"""Every recipe YAML parses with its recipe's parser, and every accelerate config says what it launches."""

import re
from pathlib import Path

import pytest
import yaml
from trl import GRPOConfig, ModelConfig, RLOOConfig, SFTConfig, TrlParser

from rusty_hf.configs import PretrainScriptArguments, RLScriptArguments, RustyScriptArguments
from rusty_hf.trainers import PPOConfig

RECIPES = Path(__file__).resolve().parents[1] / "recipes"
PARSERS = {
    "sft": (RustyScriptArguments, SFTConfig, ModelConfig),
    "pretrain": (PretrainScriptArguments, SFTConfig, ModelConfig),
    "grpo": (RLScriptArguments, GRPOConfig, ModelConfig),
    "grpo_agent": (RLScriptArguments, GRPOConfig, ModelConfig),
    "rloo": (RLScriptArguments, RLOOConfig, ModelConfig),
    "ppo": (RLScriptArguments, PPOConfig, ModelConfig),
}
CONFIGS = sorted((RECIPES / "tiny").glob("*.yaml")) + sorted((RECIPES / "r2").glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recipe_yaml_parses_with_its_recipe(path):
    # GPU-only settings (bf16, 8-bit AdamW) are overridden the way a CPU smoke run would.
    overrides = ["--use_cpu", "true", "--bf16", "false", "--optim", "adamw_torch"]
    script_args, training_args, _ = TrlParser(PARSERS[path.stem]).parse_args_and_config(
        args=["--config", str(path), *overrides]
    )
    assert training_args.output_dir.startswith("outputs/")
    if path.parent.name == "tiny":
        assert yaml.safe_load(path.read_text())["bf16"] is False  # TRL's bf16 default is ~8x slower on CPU


def test_every_accelerate_config_is_documented_with_its_launch_line():
    readme = (RECIPES.parent / "README.md").read_text()
    configs = sorted((RECIPES / "accelerate_configs").glob("*.yaml"))
    assert [path.stem for path in configs] == ["cpu", "ddp", "fsdp"]
    for path in configs:
        line = f"accelerate launch --config_file recipes/accelerate_configs/{path.name}"
        assert line in path.read_text() and line in readme
        assert yaml.safe_load(path.read_text())["num_processes"] >= 2


def test_the_readme_launches_only_configs_that_exist():
    readme = (RECIPES.parent / "README.md").read_text()
    named = set(re.findall(r"recipes/accelerate_configs/([\w.-]+\.yaml)", readme))
    assert named and all((RECIPES / "accelerate_configs" / name).is_file() for name in named), named
