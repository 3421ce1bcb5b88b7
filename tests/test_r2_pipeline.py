"""recipes/r2/pipeline.sh end to end on CPU, for a few steps: every stage runs for real, on tiny settings.

The pipeline is what a GPU user runs (`prepare` where there is network, `train` on the GPU machine); here the
stage arguments shrink it to a tiny model, a corpus of a few stdlib packages and one or two steps per stage,
so the tests check the wiring -- corpus -> tokenizer -> prepared data; pretrain -> SFT from pretrain -> GRPO
from SFT -> evaluation before and after, paired -> reward gain -> summary -- and the files a user gets, not
the model's quality. `train` runs in a network namespace with no network (`unshare -n`): it must read only
the prepared folder. The one-command form runs with rustc; a second `train`, on a copy of the prepared
folder (as on another machine), runs with no rustc anywhere it looks and must go Python-only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from datasets import load_from_disk

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
PIPELINE = ["bash", "recipes/r2/pipeline.sh"]
OFFLINE = ["unshare", "-n"]  # no network at all, not even loopback


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])  # the pipeline's python3 is ours
    return {
        **os.environ, "PATH": path, "OMP_NUM_THREADS": "2", "PYTHONPATH": str(REPO), "BUDGET_MIN": "20",
        "CORPUS_DIR": str(tmp / "corpus"),
        "CORPUS_ARGS": f"--languages python --roots stdlib={stdlib / 'json'} stdlib={stdlib / 'email'} --validation_percent 20",
        "TOKENIZER_ARGS": "--vocab_size 1024 --max_corpus_mb 0.3 --n_dialogs 50 --heldout_mb 0.05",
        "MODEL_ARGS": "--d_embed 16 --d_hidden 32 --n_layers 1",
        "PRETRAIN_ARGS": "--max_steps 2 --per_device_train_batch_size 2 --gradient_accumulation_steps 1 --max_length 128 "
                         "--eval_steps 2 --per_device_eval_batch_size 2 --max_eval_texts 2 --dataset_num_proc 1 "
                         "--save_strategy no --logging_steps 1 --report_to none",
        "SFT_ARGS": "--max_steps 2 --num_dialogs 16 --task_repeats 1 --per_device_train_batch_size 2 --dataset_num_proc 1 "
                    "--gradient_accumulation_steps 1 --max_length 256 --save_strategy no --logging_steps 1 --report_to none",
        "GRPO_ARGS": "--max_steps 1 --per_device_train_batch_size 4 --num_generations 4 --gradient_accumulation_steps 1 "
                     "--max_completion_length 8 --save_strategy no --report_to none",
        "EVAL_ARGS": "--max_tasks 2 --num_samples 2 --k 1 2 --max_new_tokens 8 --batch_size 2",
        "GAIN_ARGS": "--num_samples 1 --max_new_tokens 8",
        **extra,
    }


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    return proc


@pytest.fixture(scope="module")
def one_command(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """`pipeline.sh OUT --max_tokens 1000`, prepare then train, all without network (the test corpus is local)."""
    tmp = tmp_path_factory.mktemp("r2")
    out = tmp / "out"
    return out, _run(OFFLINE + PIPELINE + [str(out), "--max_tokens", "1000"], _env(tmp))


def test_prepare_writes_compact_data_that_train_reads(one_command):
    out, proc = one_command
    data = out / "data"
    assert sorted(p.name for p in data.iterdir()) == ["pretrain", "sft", "tasks", "tokenizer"]
    pretrain = load_from_disk(str(data / "pretrain"))
    assert pretrain["train"].features["input_ids"].feature.dtype == "uint16"
    meta = json.loads((data / "pretrain" / "prepared.json").read_text())
    assert meta["splits"]["train"]["tokens"] == 1024  # --max_tokens 1000: 8 rows of max_length 128
    assert "prepared: " in proc.stdout and str(data) in proc.stdout  # the folder's size, reported
    assert (data / "tasks" / "python").is_dir() and not list(data.rglob("__pycache__"))


def test_the_one_command_form_runs_every_stage(one_command):
    out, proc = one_command
    summary = json.loads((out / "pipeline.json").read_text())
    assert [row["stage"] for row in summary["prepare_stages"]] == ["corpus", "tokenizer", "pretrain-data", "sft-data", "tasks"]
    stages = [row["stage"] for row in summary["stages"]]
    assert stages == ["pretrain", "sft", "grpo", "eval-before", "eval-after", "reward-gain"]
    steps = {row["checkpoint"]: row["steps"] for row in summary["stages"] if "checkpoint" in row}
    assert steps == {"r2-pretrain": 2, "r2-sft": 2, "r2-grpo": 1}
    assert all(row["tokens_per_second"] > 0 for row in summary["stages"] if "checkpoint" in row)
    assert summary["results"]["pretrain_eval_bits_per_byte"] > 0
    assert 0 <= summary["results"]["python_pass@1"]["value"] <= 1
    assert summary["results"]["rust_compile_rate"] is not None and summary["rust_skipped"] is None
    assert set(summary["results"]["grpo_python_pass@1_lift"]) >= {"before", "after", "delta", "stderr", "z"}
    assert summary["results"]["reward_gain"] is not None
    assert "stage | seconds | steps | tokens/s" in proc.stdout and "floor" in proc.stdout


def test_the_trained_folders_chain_and_carry_their_cards(one_command):
    out, _ = one_command
    assert "r2-pretrain" in (out / "r2-sft" / "README.md").read_text()  # SFT started from the pretrained model
    assert "bits_per_byte" in (out / "r2-pretrain" / "README.md").read_text()  # the held-out eval, in its card
    final = out / "r2-grpo"
    for name in ("model.safetensors", "config.json", "tokenizer.json", "README.md", "eval_results.json",
                 "reward_gain.json", "pipeline.json", "train_results.json"):
        assert (final / name).is_file(), name
    card = (final / "README.md").read_text()
    assert "pass@1" in card and "Held-out reward before and after RL" in card  # both reports, in the card
    assert json.loads((final / "eval_results.json").read_text())["comparison"]["baseline_model"] == str(out / "r2-sft")


def test_train_without_rustc_runs_python_only_and_says_so(one_command, tmp_path):
    out = tmp_path / "elsewhere"
    shutil.copytree(one_command[0] / "data", out / "data")  # the prepared folder, copied to another machine
    home = tmp_path / "home"  # no ~/.cargo/bin/rustc; the caches (torch's compiled CPU kernels) stay where they are
    home.mkdir()
    cache = os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    env = _env(tmp_path, HOME=str(home), XDG_CACHE_HOME=cache)
    env["PATH"] = os.pathsep.join(d for d in env["PATH"].split(os.pathsep) if not (Path(d) / "rustc").exists())
    env.pop("RUSTC", None)
    proc = _run(OFFLINE + PIPELINE + ["train", str(out)], env)
    assert (proc.stdout + proc.stderr).count("Rust skipped") == 2  # the warning, and the summary's line
    summary = json.loads((out / "pipeline.json").read_text())
    assert "rustc not found" in summary["rust_skipped"]
    assert summary["floors"]["held-out Rust compile rate >= 0.5"] == "skipped"
    report = json.loads((out / "r2-grpo" / "eval_results.json").read_text())
    assert set(report["aggregate"]) == {"python", "protocol"} and report["settings"]["languages"] == ["python"]
    gain = json.loads((out / "r2-grpo" / "reward_gain.json").read_text())
    assert gain["settings"]["reward_names"] == ["execution", "protocol"] and gain["settings"]["languages"] == ["python"]
