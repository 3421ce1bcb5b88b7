"""benchmarks/packed_recipe.py and benchmarks/step_profile.py on CPU at toy sizes: each runs end to end,
prints its table and writes its JSON. The numbers themselves are measured on idle machines, never here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def test_step_profile_puts_each_models_step_into_op_families(tmp_path: Path) -> None:
    out = tmp_path / "profile.json"
    proc = subprocess.run([sys.executable, str(BENCH / "step_profile.py"), "--device", "cpu", "--batch", "2", "--seqlen",
                           "16", "--width", "32", "--layers", "1", "--vocab", "128", "--steps", "1", "--output", str(out)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| family | ours | GPT-2 |" in proc.stdout
    result = json.loads(out.read_text())
    for model in ("ours", "gpt2"):
        families = result["models"][model]["ms_per_step"]
        assert "matmul" in families and result["models"][model]["total_ms"] > 0
    assert "wkv" in result["models"]["ours"]["ms_per_step"]


@pytest.mark.slow  # ~50 s: a toy recipe as HEAD had it (a git worktree), padding-free and packed, each in a subprocess
def test_packed_recipe_runs_baseline_padding_free_and_packed_cases(tmp_path: Path, tiny_tokenizer) -> None:
    tiny_tokenizer.save_pretrained(tmp_path / "tok")
    out = tmp_path / "packed.json"
    proc = subprocess.run([sys.executable, str(BENCH / "packed_recipe.py"), "--recipe", "tiny", "--tokenizer",
                           str(tmp_path / "tok"), "--steps", "2", "--no_bare", "--cases", "baseline", "padding_free",
                           "packed", "--baseline_commit", "HEAD",
                           "--output", str(out), "--", "--num_terminal", "40", "--task_repeats", "1", "--max_length", "2048",
                           "--terminal_cache_dir", str(tmp_path / "fixtures"), "--d_hidden", "32", "--d_embed", "16",
                           "--n_layers", "1"],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    result = json.loads(out.read_text())
    for case in ("baseline", "padding_free", "packed"):
        assert result["cases"][case]["steps"] == 2 and result["cases"][case]["tokens"] > 0
    assert result["baseline_commit"] == "HEAD" and "packed takes" in proc.stdout
    assert result["cases"]["padding_free"]["wall_time_share_same_tokens"] > 0


def test_cpu_parts_times_upstream_against_ours(tmp_path: Path) -> None:
    out = tmp_path / "parts.json"
    proc = subprocess.run([sys.executable, str(BENCH / "cpu_parts.py"), "--positions", "32", "--vocab", "300",
                           "--rows", "3", "--new_tokens", "4", "--rounds", "1", "--output", str(out)],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| part | upstream (ms) | ours (ms) | speed-up |" in proc.stdout
    result = json.loads(out.read_text())
    for part in ("fused_head", "sampling_step", "generate"):
        assert result[part]["speedup"] > 0
