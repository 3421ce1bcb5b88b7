"""recipes/r2/pipeline.sh end to end on CPU, for a few steps: every stage runs for real, on tiny settings.

The pipeline is the one command a GPU user runs (BUDGET_MIN=30); here the stage arguments shrink it to a
tiny model, a corpus of a few stdlib packages and one or two steps per stage, so the test checks the
wiring -- corpus -> tokenizer -> pretrain -> SFT from pretrain -> GRPO from SFT -> evaluation before and
after, paired -> reward gain -> summary -- and the files a user gets, not the model's quality.
"""

from __future__ import annotations

import json
import os
import subprocess
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


def test_r2_pipeline_runs_every_stage_on_cpu(tmp_path):
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    out = tmp_path / "out"
    env = {
        **os.environ, "OMP_NUM_THREADS": "2", "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1",
        "BUDGET_MIN": "20", "OUT_DIR": str(out), "CORPUS_DIR": str(tmp_path / "corpus"),
        "CORPUS_ARGS": f"--languages python --roots stdlib={stdlib / 'json'} stdlib={stdlib / 'email'} --validation_percent 20",
        "TOKENIZER_ARGS": "--vocab_size 1024 --max_corpus_mb 0.3 --n_dialogs 50 --heldout_mb 0.05",
        "MODEL_ARGS": "--d_embed 16 --d_hidden 32 --n_layers 1",
        "PRETRAIN_ARGS": "--max_steps 2 --per_device_train_batch_size 2 --gradient_accumulation_steps 1 --max_length 128 "
                         "--eval_steps 2 --per_device_eval_batch_size 2 --max_eval_texts 2 --dataset_num_proc 1 "
                         "--save_strategy no --logging_steps 1 --report_to none",
        "SFT_ARGS": "--max_steps 2 --num_dialogs 16 --task_repeats 1 --per_device_train_batch_size 2 "
                    "--gradient_accumulation_steps 1 --max_length 256 --save_strategy no --logging_steps 1 --report_to none",
        "GRPO_ARGS": "--max_steps 1 --per_device_train_batch_size 4 --num_generations 4 --gradient_accumulation_steps 1 "
                     "--max_completion_length 8 --save_strategy no --report_to none",
        "EVAL_ARGS": "--max_tasks 2 --num_samples 2 --k 1 2 --max_new_tokens 8 --batch_size 2",
        "GAIN_ARGS": "--num_samples 1 --max_new_tokens 8",
    }
    proc = subprocess.run(["bash", "recipes/r2/pipeline.sh"], cwd=REPO, env=env, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]

    summary = json.loads((out / "pipeline.json").read_text())
    stages = [row["stage"] for row in summary["stages"]]
    assert stages == ["corpus", "tokenizer", "pretrain", "sft", "grpo", "eval-before", "eval-after", "reward-gain"]
    steps = {row["checkpoint"]: row["steps"] for row in summary["stages"] if "checkpoint" in row}
    assert steps == {"r2-pretrain": 2, "r2-sft": 2, "r2-grpo": 1}
    assert all(row["tokens_per_second"] > 0 for row in summary["stages"] if "checkpoint" in row)
    assert summary["results"]["pretrain_eval_bits_per_byte"] > 0
    assert 0 <= summary["results"]["python_pass@1"]["value"] <= 1
    assert set(summary["results"]["grpo_python_pass@1_lift"]) >= {"before", "after", "delta", "stderr", "z"}
    assert summary["results"]["reward_gain"] is not None
    assert "stage | seconds | steps | tokens/s" in proc.stdout and "floor" in proc.stdout

    # SFT started from the pretrained checkpoint, GRPO from SFT: the chain a user asks for
    sft_card = (out / "r2-sft" / "README.md").read_text()
    assert "r2-pretrain" in sft_card
    assert "bits_per_byte" in (out / "r2-pretrain" / "README.md").read_text()  # the held-out eval, in its card
    final = out / "r2-grpo"
    for name in ("model.safetensors", "config.json", "tokenizer.json", "README.md", "eval_results.json",
                 "reward_gain.json", "pipeline.json", "train_results.json"):
        assert (final / name).is_file(), name
    card = (final / "README.md").read_text()
    assert "pass@1" in card and "Held-out reward before and after RL" in card  # both reports, in the card
    assert json.loads((final / "eval_results.json").read_text())["comparison"]["baseline_model"] == str(out / "r2-sft")
