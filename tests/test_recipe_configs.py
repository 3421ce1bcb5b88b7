"""Every recipe YAML parses with its recipe's parser, and every accelerate config says what it launches."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from trl import GRPOConfig, ModelConfig, RLOOConfig, SFTConfig, TrlParser

from rusty_hf.training.arguments import PretrainScriptArguments, RLScriptArguments, RustyScriptArguments
from rusty_hf.trainers import PPOConfig
from tests.test_snippets import DOCS

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


def documentation() -> str:
    """The README, docs/ and the r2 pipeline's README, as one text."""
    return "\n".join(path.read_text() for path in DOCS)


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
    docs = documentation()
    configs = sorted((RECIPES / "accelerate_configs").glob("*.yaml"))
    assert [path.stem for path in configs] == ["cpu", "ddp", "fsdp"]
    for path in configs:
        line = f"accelerate launch --config_file recipes/accelerate_configs/{path.name}"
        assert line in path.read_text() and line in docs
    assert yaml.safe_load((RECIPES / "accelerate_configs" / "cpu.yaml").read_text())["num_processes"] == 2


def test_gpu_launch_lines_take_the_process_count_from_the_machine():
    # A count in ddp.yaml / fsdp.yaml would start that many processes on any machine (8 on one GPU):
    # every launch line of theirs passes --num_processes (the GPU count, or all GPUs of several nodes).
    files = [*DOCS, *RECIPES.rglob("*.yaml"), *RECIPES.glob("*.py")]
    lines = [line for f in files for line in f.read_text().splitlines()
             if re.search(r"accelerate_configs/(ddp|fsdp)\.yaml", line) and "accelerate launch" in line]
    assert len(lines) >= 10
    for line in lines:
        assert "--num_processes" in line, line
    for name in ("ddp.yaml", "fsdp.yaml"):
        assert "num_processes" not in yaml.safe_load((RECIPES / "accelerate_configs" / name).read_text())


def test_a_gpu_config_launched_without_a_process_count_is_refused_naming_the_flag():
    proc = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--config_file",
                           str(RECIPES / "accelerate_configs" / "ddp.yaml"), "recipes/sft.py", "--help"],
                          cwd=RECIPES.parent, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "--num_processes" in proc.stderr


def test_the_docs_launch_only_configs_that_exist():
    named = set(re.findall(r"recipes/accelerate_configs/([\w.-]+\.yaml)", documentation()))
    assert named and all((RECIPES / "accelerate_configs" / name).is_file() for name in named), named


@pytest.mark.parametrize("field", ["terminal_multi_turn_share", "terminal_closing_share"])
def test_terminal_shares_outside_zero_to_one_are_refused_naming_the_field(field):
    with pytest.raises(ValueError, match=field):
        RustyScriptArguments(**{field: 1.5})
    assert getattr(RustyScriptArguments(**{field: 0.15}), field) == 0.15
