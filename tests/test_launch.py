"""Recipes under `accelerate launch` (2 CPU processes) and SFT's kill-and-resume, as real subprocesses.

The 2-process runs use recipes/accelerate_configs/cpu.yaml, exactly the README's command line, and
are compared with a single-process run of the same global batch at step 1.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
ACCELERATE_CPU = REPO / "recipes" / "accelerate_configs" / "cpu.yaml"


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory, tiny_tokenizer):
    path = tmp_path_factory.mktemp("tok")
    tiny_tokenizer.save_pretrained(path)
    return path


def _env() -> dict[str, str]:
    # One thread per process: two launched processes share the two cores.
    return {**os.environ, "OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
            "PYTHONPATH": str(REPO)}


def _sft_args(tokenizer_dir: Path, out: Path, per_device: int, *extra: str) -> list[str]:
    return [
        "recipes/sft.py", "--config", "recipes/tiny/sft.yaml", "--tokenizer_name_or_path", str(tokenizer_dir),
        "--output_dir", str(out), "--d_embed", "16", "--d_hidden", "32", "--n_layers", "1", "--num_dialogs", "32",
        "--task_repeats", "0", "--max_length", "512", "--per_device_train_batch_size", str(per_device),
        "--logging_steps", "1", "--save_strategy", "steps", "--save_steps", "1", "--report_to", "none", *extra,
    ]


def _run(argv: list[str], launch: bool = False, timeout: float = 600) -> None:
    prefix = [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(ACCELERATE_CPU)] if launch else [sys.executable]
    proc = subprocess.run(prefix + argv, cwd=REPO, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def _losses(out: Path) -> dict[int, float]:
    last = max(out.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    history = json.loads((last / "trainer_state.json").read_text())["log_history"]
    return {entry["step"]: entry["loss"] for entry in history if "loss" in entry}


def test_sft_on_two_processes_matches_one_process_at_step_one(tmp_path, tokenizer_dir):
    # Sequential order: the two processes' step-1 shards (rows 0-1 and 2-3) are then the one process's batch.
    same_rows = ["--max_steps", "1", "--train_sampling_strategy", "sequential"]
    _run(_sft_args(tokenizer_dir, tmp_path / "one", 4, *same_rows))
    _run(_sft_args(tokenizer_dir, tmp_path / "two", 2, *same_rows), launch=True)
    one, two = _losses(tmp_path / "one")[1], _losses(tmp_path / "two")[1]
    assert two == pytest.approx(one, rel=1e-4)


def test_grpo_on_two_processes_runs_and_matches_one_process_at_step_one(tmp_path, tokenizer_dir):
    def args(out: Path, per_device: int) -> list[str]:
        return [
            "recipes/grpo.py", "--config", "recipes/tiny/grpo.yaml", "--model_name_or_path", "",
            "--tokenizer_name_or_path", str(tokenizer_dir), "--output_dir", str(out), "--d_embed", "16",
            "--d_hidden", "32", "--n_layers", "1", "--max_steps", "1", "--num_generations", "4",
            "--per_device_train_batch_size", str(per_device), "--max_completion_length", "8",
            "--temperature", "1.0", "--save_strategy", "steps", "--save_steps", "1", "--report_to", "none",
        ]

    _run(args(tmp_path / "one", 8))
    _run(args(tmp_path / "two", 4), launch=True)
    one, two = _losses(tmp_path / "one")[1], _losses(tmp_path / "two")[1]
    # Completions are sampled, so the two runs see different samples of the same prompts; at step 1 the
    # policy ratio is 1 and the group-normalised advantages average to zero, so both losses sit near 0.
    assert abs(one) < 0.05 and abs(two) < 0.05 and abs(one - two) < 0.05


def test_sft_killed_mid_run_resumes_to_the_same_losses(tmp_path, tokenizer_dir):
    steps = ["--max_steps", "6", "--save_steps", "2", "--learning_rate", "1e-2"]
    _run(_sft_args(tokenizer_dir, tmp_path / "full", 4, *steps))
    full = _losses(tmp_path / "full")

    out = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, *_sft_args(tokenizer_dir, out, 4, *steps, "--save_steps", "2")],
                            cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600
        while not (out / "checkpoint-2" / "trainer_state.json").is_file() and proc.poll() is None:
            assert time.monotonic() < deadline, "no checkpoint-2 within 10 minutes"
            time.sleep(0.2)
        time.sleep(0.5)  # let the checkpoint's last file land, then kill hard, mid-run
        proc.kill()
    finally:
        proc.wait()
    for late in out.glob("checkpoint-*"):
        if int(late.name.split("-")[1]) > 2:  # the run may have got further; resume from step 2 regardless
            import shutil

            shutil.rmtree(late)
    _run(_sft_args(tokenizer_dir, out, 4, *steps, "--resume_from_checkpoint", "last"))
    resumed = _losses(out)
    assert resumed[3] == pytest.approx(full[3], abs=1e-4)
    assert resumed[6] == pytest.approx(full[6], abs=1e-4)
