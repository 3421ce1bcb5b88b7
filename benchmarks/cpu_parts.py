"""The two CPU hot spots of the tiny recipes, upstream's code against ours, in one run.

- **The fused LM head** (TRL's ``ChunkedLogProbFunction``, which SFT, GRPO, RLOO, DPO and KTO all call):
  forward + backward over N labelled positions of an H -> V head, with the entropy and top-1 outputs TRL's
  SFT logs, TRL's CPU fold against `rusty_hf.training.trl_cpu.CpuTokenLogProbs`.
- **The sampling step** of `generate` (``torch.multinomial(probs, 1)`` on R rows of V): torch's draw against
  `rusty_hf.models.tiny_rwkv.sampling.inverse_cdf_sample`; and whole sampled generations of a TinyRWKV at
  the tiny recipe's size (R rows, T new tokens), with torch's draw and with ours.

Rounds interleave the two sides; medians are reported, with the ratio of medians.

    python3 benchmarks/cpu_parts.py                      # N 1100, H 192, V 24000, R 16, T 160
    python3 benchmarks/cpu_parts.py --positions 64 --vocab 512 --rounds 2 --new_tokens 8 --output /tmp/x.json

Writes benchmarks/results/cpu_parts.json (or --output) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM  # noqa: E402
from rusty_hf.models.tiny_rwkv import sampling  # noqa: E402
from rusty_hf.training.trl_cpu import CpuTokenLogProbs  # noqa: E402


def _median_ms(fn, rounds: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def head_case(positions: int, width: int, vocab: int, rounds: int) -> dict:
    from trl.kernels import ChunkedLogProbFunction

    torch.manual_seed(0)
    hidden = torch.randn(positions, width, requires_grad=True)
    weight = (torch.randn(vocab, width) * width**-0.5).requires_grad_()
    targets = torch.randint(0, vocab, (positions,))

    def run(function):
        def step():
            hidden.grad = weight.grad = None
            log_probs, *_ = function.apply(hidden, weight, None, targets, 1.0, 32768, None, 1.0, ("entropy", "is_top1"))
            (-log_probs.mean()).backward()
        return step

    sides = {"trl": run(ChunkedLogProbFunction), "ours": run(CpuTokenLogProbs)}
    times = {name: [] for name in sides}
    for _ in range(rounds):  # interleaved
        for name, step in sides.items():
            times[name].append(_median_ms(step, 1))
    return {"shape": {"positions": positions, "width": width, "vocab": vocab},
            **{f"{name}_ms": statistics.median(t) for name, t in times.items()}}


def sampling_case(rows: int, vocab: int, rounds: int) -> dict:
    torch.manual_seed(0)
    probs = torch.softmax(torch.randn(rows, vocab) * 3, -1)
    original = getattr(torch.multinomial, "_rusty_original", torch.multinomial)
    times = {"torch": [], "ours": []}
    for _ in range(rounds):
        times["torch"].append(_median_ms(lambda: original(probs, 1), 5))
        times["ours"].append(_median_ms(lambda: sampling.inverse_cdf_sample(probs), 5))
    return {"shape": {"rows": rows, "vocab": vocab}, **{f"{k}_ms": statistics.median(v) for k, v in times.items()}}


def generate_case(rows: int, vocab: int, new_tokens: int, rounds: int) -> dict:
    torch.manual_seed(0)
    config = TinyRWKVConfig(vocab_size=vocab, d_embed=96, d_hidden=192, n_layers=2)
    model = TinyRWKVForCausalLM(config).eval()
    prompt = torch.randint(3, vocab, (rows, 48))
    kwargs = dict(do_sample=True, temperature=0.7, top_k=0, max_new_tokens=new_tokens, min_new_tokens=new_tokens,
                  pad_token_id=0, attention_mask=torch.ones_like(prompt))
    times = {"torch": [], "ours": []}
    previous = os.environ.get("RUSTY_CPU_SAMPLING")
    with torch.no_grad():
        for _ in range(rounds):
            for name in times:
                os.environ["RUSTY_CPU_SAMPLING"] = "on" if name == "ours" else "off"
                times[name].append(_median_ms(lambda: model.generate(prompt, **kwargs), 1))
    if previous is None:
        os.environ.pop("RUSTY_CPU_SAMPLING")
    else:
        os.environ["RUSTY_CPU_SAMPLING"] = previous
    return {"shape": {"rows": rows, "vocab": vocab, "new_tokens": new_tokens, "model": "2 x 192 (the tiny recipe)"},
            **{f"{k}_ms": statistics.median(v) for k, v in times.items()},
            **{f"{k}_ms_per_token": statistics.median(v) / new_tokens for k, v in times.items()}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=1100)
    parser.add_argument("--width", type=int, default=192)
    parser.add_argument("--vocab", type=int, default=24000)
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--new_tokens", type=int, default=160)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results" / "cpu_parts.json")
    args = parser.parse_args()
    result = {
        "machine": {"processor": platform.processor() or platform.machine(), "threads": torch.get_num_threads(),
                    "torch": torch.__version__},
        "fused_head": head_case(args.positions, args.width, args.vocab, args.rounds),
        "sampling_step": sampling_case(args.rows, args.vocab, args.rounds),
        "generate": generate_case(args.rows, args.vocab, args.new_tokens, args.rounds),
    }
    print("| part | upstream (ms) | ours (ms) | speed-up |\n|---|---|---|---|")
    for part, (old, new), label in [
        ("fused_head", ("trl_ms", "ours_ms"), "fused head fwd+bwd, {positions} x {width} -> {vocab} (TRL's fold / ours)"),
        ("sampling_step", ("torch_ms", "ours_ms"), "sampling step, {rows} x {vocab} (torch.multinomial / inverse CDF)"),
        ("generate", ("torch_ms", "ours_ms"), "generate {rows} rows x {new_tokens} tokens, tiny model"),
    ]:
        r = result[part]
        r["speedup"] = r[old] / r[new]
        print(f"| {label.format(**r['shape'])} | {r[old]:,.1f} | {r[new]:,.1f} | {r['speedup']:.2f}x |")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
