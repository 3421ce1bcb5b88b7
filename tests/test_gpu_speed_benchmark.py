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


def _cases(folder: Path) -> dict[tuple[str, str], dict]:
    lines = [json.loads(line) for path in folder.glob("*.jsonl") for line in path.read_text().splitlines()]
    return {(case.pop("section"), case.pop("case")): case for case in lines}


@pytest.mark.slow  # ~100 s here (2 busy cores): five section processes, two train shapes, two compiles
def test_gpu_check_runs_every_section_as_case_lines_and_prints_the_claims(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RUSTY_WKV_BACKEND"}  # each case sets its own backend
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]])  # the script's python3 is ours
    env["GPU_CHECK_DIR"] = str(tmp_path)
    proc = subprocess.run(["bash", str(SCRIPT.parent / "gpu_check.sh"), "--device", "cpu", "--quick", "--width", "64",
                           "--layers", "2", "--vocab", "512", "--tokenizer", str(tmp_path / "none")],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    cases = _cases(tmp_path)
    assert {section for section, _ in cases} == {"train", "compile", "decode", "exactness", "recipe"}
    rates = [c["tokens_per_s"] for (s, _), c in cases.items() if s in ("train", "compile")]
    rates += [v for (s, _), c in cases.items() if s == "decode" for k, v in c.items() if k.endswith("tokens_per_s")]
    assert rates and all(math.isfinite(rate) and rate > 0 for rate in rates)
    backend = "triton" if os.environ.get("TRITON_INTERPRET") == "1" else "torch"  # the default WKV backend here
    compiled = {key: case for (section, key), case in cases.items() if section == "compile"}
    assert sorted(compiled) == ["B2_T32_bf16 gpt2/compiled", f"B2_T32_bf16 ours[{backend}]/compiled"]
    assert not any("error" in case for case in compiled.values())  # fullgraph=True: a graph break would be an error
    graphed = cases[("decode", f"ours[{backend}]")]["graphs"]
    assert graphed["static_steps"] > 0 and cases[("decode", f"ours[{backend}]/no-graphs")]["graphs"]["static_steps"] == 0
    assert cases[("decode", "context_scaling")]["long_over_short"] > 0
    assert cases[("exactness", "parallel_vs_recurrent")]["max_abs_diff"] <= 1e-4
    same = cases[("exactness", "decode_graphs_vs_eager")]
    assert same["mode"] == "eager" and same["same_tokens"] and same["max_abs_diff"] <= 1e-4
    recipe = cases[("recipe", "r2_sft")]
    assert recipe["steps"] == 4 and recipe["tokens_per_s"] > 0 and recipe["whole_run_tokens_per_s"] > 0
    claims = json.loads((tmp_path / "claims.json").read_text())["claims"]
    assert "fullgraph=True" in claims[0]["claim"] and claims[0]["value"] == "1 shapes compiled"
    assert {row["status"] for row in claims} <= {"not checked on CPU", "not measured"}
    assert "### GPU claims of the README" in proc.stdout


def test_graphed_decoding_that_captured_nothing_is_an_error() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    from gpu_speed import graph_counts

    with pytest.raises(RuntimeError, match="nothing captured"):
        with graph_counts("auto"):
            pass  # a failed capture decodes eagerly: no capture, no replay
    with graph_counts("off") as counts:  # graphs off: nothing expected
        pass
    assert counts["captures"] == 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="the no-GPU message only shows without CUDA")
def test_without_cuda_says_so_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    proc = run_script("--output", str(out), timeout=120)
    assert proc.returncode == 0
    assert "no CUDA GPU" in proc.stdout and "--device cpu --quick" in proc.stdout
    assert not out.exists()


def test_wkv_chunks_checks_the_chunked_kernels_against_float64_on_cpu(tmp_path: Path) -> None:
    """benchmarks/wkv_chunks.py's exactness section under Triton's interpreter: one pass and 4-step chunks both
    within float32 rounding of the float64 torch backend, forward and every gradient."""
    pytest.importorskip("triton")
    out = tmp_path / "wkv_chunks.json"
    env = {k: v for k, v in os.environ.items() if k not in ("RUSTY_WKV_BACKEND", "RUSTY_WKV_CHUNK")}
    proc = subprocess.run([sys.executable, str(SCRIPT.parent / "wkv_chunks.py"), "--device", "cpu", "--quick",
                           "--sections", "exactness", "--output", str(out)], capture_output=True, text=True,
                          env=env | {"TRITON_INTERPRET": "1"}, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    exact = json.loads(out.read_text())["exactness"]
    assert exact["chunk_length"] == 4
    for case in ("off", "chunked"):
        assert set(exact[case]) == {"y", "a", "b", "p", "gw", "gu", "gk", "gv"}
        assert all(0 < error < 1e-5 for error in exact[case].values()), exact[case]
