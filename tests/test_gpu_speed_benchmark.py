"""benchmarks/gpu_speed.py on CPU: the --quick smoke run exercises every code path, and without CUDA
the default invocation says so and exits 0. The GPU numbers themselves are never checked here."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "gpu_speed.py"


def run_script(*args: str, timeout: int) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "RUSTY_WKV_BACKEND"}  # each case sets its own backend
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


@pytest.mark.slow  # 90-150 s on a busy 2-core box: six model builds, two compiles, a few dozen generates
def test_quick_cpu_run_writes_every_section(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    proc = run_script("--device", "cpu", "--quick", "--width", "64", "--layers", "2", "--vocab", "512",
                      "--output", str(out), "--tokenizer", str(tmp_path / "none"), timeout=500)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    r = json.loads(out.read_text())
    assert {"train", "decode", "exactness", "recipe", "floors", "machine"} <= set(r)
    assert r["recipe"]["r2_sft"]["steps"] == 2 and r["recipe"]["r2_sft"]["tokens_per_s"] > 0
    train_rates = [case["tokens_per_s"] for row in r["train"].values() for case in row.values()]
    decode_rates = [v for case in r["decode"].values() for k, v in case.items() if k.endswith("tokens_per_s")]
    for rate in train_rates + decode_rates:
        assert math.isfinite(rate) and rate > 0
    assert any("compiled" in key for row in r["train"].values() for key in row)  # the compile path ran
    assert r["decode"]["context_scaling"]["long_over_short"] > 0
    assert r["exactness"]["parallel_vs_recurrent"]["max_abs_diff"] <= 1e-4
    graphed = r["exactness"]["decode_graphs_vs_eager"]
    assert graphed["mode"] == "eager" and graphed["same_tokens"] and graphed["max_abs_diff"] <= 1e-4
    assert any(key.endswith("/no-graphs") for key in r["decode"])  # the graphs' gain is measured in-run
    assert all(row["status"] in ("not checked on CPU", "not measured") for row in r["floors"])


@pytest.mark.skipif(torch.cuda.is_available(), reason="the no-GPU message only shows without CUDA")
def test_without_cuda_says_so_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    proc = run_script("--output", str(out), timeout=120)
    assert proc.returncode == 0
    assert "no CUDA GPU" in proc.stdout and "--device cpu --quick" in proc.stdout
    assert not out.exists()
