"""benchmarks/closing_truth.py: how a closing MSG is sorted, and one end-to-end run with a random TinyRWKV
(the counts cover every request; the numbers themselves come from trained checkpoints, never here)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import torch

from rusty_hf import TinyRWKVForCausalLM
from tests.conftest import tiny_config

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "closing_truth.py"
_spec = importlib.util.spec_from_file_location("closing_truth", BENCH)
closing_truth = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(closing_truth)

OUTPUT = "README.md\napp.py\nnotes.txt\n[exit code 0]"


def test_a_closing_is_the_status_a_true_list_a_false_one_or_other():
    assert closing_truth.kind_of("Done.", OUTPUT) == "status"
    assert closing_truth.kind_of("Failed: exit code 127.", OUTPUT) == "status"
    assert closing_truth.kind_of("It shows: README.md, app.py.", OUTPUT) == "states_true"
    assert closing_truth.kind_of("It shows: README.md, __init__.py.", OUTPUT) == "states_false"  # not in the output
    assert closing_truth.kind_of("It shows:", OUTPUT) == "states_false"  # names nothing
    assert closing_truth.kind_of("It shows: x.", "[exit code 0, no output]") == "states_false"
    assert closing_truth.kind_of("It shows: app.", OUTPUT) == "states_false"  # part of a line is not the line
    assert closing_truth.kind_of("It shows: def f(a, b):, return a.", "def f(a, b):\n    return a\n") == "states_true"
    assert closing_truth.kind_of("It shows: 1,a,2.", "1,a,2\n") == "states_true"  # a CSV line stays whole
    assert closing_truth.kind_of("3 files.", OUTPUT) == "other"
    assert closing_truth.kind_of(None, OUTPUT) == "other"


def test_a_run_sorts_every_request_and_writes_its_json(tmp_path, tiny_tokenizer, monkeypatch):
    torch.manual_seed(0)
    model = TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))
    model.save_pretrained(tmp_path / "model")
    tiny_tokenizer.save_pretrained(tmp_path / "model")
    out = tmp_path / "truth.json"
    monkeypatch.setattr(sys, "argv", ["closing_truth.py", "--model", str(tmp_path / "model"), "--cache-dir",
                                      str(tmp_path / "fixtures"), "--per-intent", "1", "--out", str(out)])  # fmt: skip
    closing_truth.main()
    report = json.loads(out.read_text())["reports"][0]
    assert report["requests"] == len(report["samples"]) > 5
    assert sum(report[k] for k in closing_truth.KINDS) == report["requests"]
    assert all(s["kind"] in closing_truth.KINDS for s in report["samples"])
