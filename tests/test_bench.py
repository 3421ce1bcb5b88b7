"""rusty-bench (rusty_hf/inference/bench.py): a table of rows, skipped rows with their reason, floors as a
table, and results written only where --out says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.inference.bench import FLOORS, format_floors
from tests.conftest import tiny_config

ROOT = Path(__file__).resolve().parents[1]


def test_floors_print_as_a_table():
    table = format_floors({"int8_weight_ratio": 0.3, "int8_weight_ok": True, "int8_tokens_ratio": 0.5, "int8_tokens_ok": False})
    assert table.splitlines()[:2] == ["| floor | measured | limit | status |", "|---|---:|---:|---|"]
    assert f"| CPU int8 / fp32 weight memory | 0.30 | <= {FLOORS['int8_weight_ratio_max']} | met |" in table
    assert "| CPU int8 / fp32 tokens/s | 0.50 | >= 0.75 | NOT MET |" in table
    assert format_floors({"error": "fp32 or int8 row missing"}).startswith("floors: not judged")


@pytest.mark.slow
def test_a_small_random_model_skips_4bit_and_writes_only_where_out_says(tmp_path):
    model = tmp_path / "tiny"  # widths of 16 and 32: bitsandbytes' CPU 4-bit cannot pack them
    TinyRWKVForCausalLM(tiny_config()).save_pretrained(model)
    out = tmp_path / "record.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "rusty_hf.inference.bench", "--model", str(model), "--new-tokens", "2", "--repeats", "1",
           "--threads", "1", "--out", str(out)]
    result = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    record = json.loads(out.read_text())
    rows = {row["mode"]: row for row in record["rows"]}
    assert "blocks of 64 input features" in rows["4bit"]["skipped"] and not any("error" in r for r in record["rows"])
    assert "| cpu  | 4bit     | skipped: quantization='4bit' on CPU" in result.stdout
    assert "| floor | measured | limit | status |" in result.stdout
    met = record["floors"]["int8_weight_ok"] and record["floors"]["int8_tokens_ok"]
    assert result.returncode == (0 if met else 1), result.stderr  # only a floor can fail it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.json", "tiny"]  # nothing else written


def test_a_missing_model_folder_is_one_line(tmp_path, capsys):
    from rusty_hf.inference.bench import main

    assert main(["--model", str(tmp_path / "nope")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("rusty-bench: no such folder:")
