"""benchmarks/compile_recompile.py: the reproducer of the GPU recompile failure, run at tiny size on CPU."""

import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import compile_recompile  # noqa: E402

from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM  # noqa: E402


def test_the_witness_layout_makes_every_mixing_weight_1_1_c_and_keeps_the_logits():
    model = TinyRWKVForCausalLM(TinyRWKVConfig(vocab_size=64, d_embed=16, d_hidden=32, n_layers=2)).eval()
    assert {tuple(p.shape) for n, p in model.named_parameters() if "time_mix" in n} == {(32,)}  # as shipped
    ids = torch.randint(0, 64, (2, 9), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        before = model(ids).logits
        compile_recompile.unflatten_time_mix(model)
        after = model(ids).logits
    shapes = {tuple(p.shape) for n, p in model.named_parameters() if "time_mix" in n}
    assert shapes == {(1, 1, 32)} and sum("time_mix" in n for n, _ in model.named_parameters()) == 10
    torch.testing.assert_close(after, before)


def test_cpu_run_writes_one_row_per_layout_and_length(tmp_path, capsys):
    out = tmp_path / "record.json"
    status = compile_recompile.main(["--device", "cpu", "--backend", "aot_eager", "--width", "32", "--vocab", "64",
                                     "--batch", "2", "--seqlens", "8", "24", "--output", str(out)])
    record = json.loads(out.read_text())
    assert status == 0 and record["device"] == "cpu" and record["torch"] == torch.__version__
    assert [(r["layout"][:10], r["seqlen"]) for r in record["rows"]] == [
        ("time_mix (", 8), ("time_mix (", 24), ("time_mix (", 8), ("time_mix (", 24)]
    assert all(r["ok"] and r["error"] is None for r in record["rows"])
    assert "| time_mix (C,), as shipped | 2 x 24 | ok |" in capsys.readouterr().out


def test_without_a_gpu_the_cuda_run_says_so_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert compile_recompile.main(["--output", str(tmp_path / "x.json")]) == 0
    assert "no CUDA GPU" in capsys.readouterr().out and not (tmp_path / "x.json").exists()
