"""`rusty-bench`: peak memory and tokens/s of TinyRWKV in every inference mode, in one run.

    rusty-bench                                  # fresh random R2-size model (4 layers, 256->512, vocab 24000)
    rusty-bench --model outputs/tiny-sft         # a saved checkpoint
    python benchmarks/inference.py --repeats 5   # the same main

Modes: on CPU fp32, int8 (rusty_hf weight-only) and bnb 4-bit; on CUDA fp16, bf16, bnb 8-bit and
bnb 4-bit. Rows for a device this machine lacks are printed as skipped, with the reason. Each
mode runs in its own subprocess, so its peak memory is its own: on CPU the growth of the
process's RSS high-water mark (VmHWM) over the RSS before loading; on CUDA
`torch.cuda.max_memory_allocated`. Weight memory is the bytes of parameters and buffers.
tokens/s: greedy `generate` at batch 1, a 16-token prompt, exactly `--new-tokens` new tokens,
the best of `--repeats` timed runs after one warm-up (load from other processes only slows runs).
`--threads 1` is the fair setting on a shared 2-core machine: with 2 OpenMP threads and other
processes busy, every kernel that splits across threads stalls on the descheduled one (measured
here: fp32 13-17 tok/s at 2 threads vs 63-69 at 1; int8 3.7 vs 76-81).

A mode that does not apply to the model (bitsandbytes' CPU 4-bit needs input widths that are multiples
of 64; a random small model may have others) is skipped with the reason, like a missing GPU.

Floors (CPU, int8 against fp32): weight memory <= 0.45x, tokens/s >= 0.75x, printed as a table. Exit
status 1 when a floor fails or a mode errors; 2 for a wrong argument (one line on stderr). The JSON
record is written only where `--out` says (the committed benchmarks/results/inference.json is
rewritten only with `--out benchmarks/results/inference.json`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rusty_hf.errors import UserError, run_cli

CPU_MODES = {"fp32": "none", "int8": "int8", "4bit": "4bit"}
CUDA_MODES = {"fp16": "none", "bf16": "none", "bnb-int8": "int8", "bnb-4bit": "4bit"}
FLOORS = {"int8_weight_ratio_max": 0.45, "int8_tokens_ratio_min": 0.75}


def _rss_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def run_mode(model_dir: str, mode: str, device: str, new_tokens: int, repeats: int, compile: bool, threads: int = 0) -> dict:
    """Load and time one mode in this process; returns its row."""
    import torch

    if threads:
        torch.set_num_threads(threads)

    import rusty_hf.models  # noqa: F401  (registers TinyRWKV)
    from rusty_hf.inference import load_model, weight_bytes

    from rusty_hf.inference.warmup import quiet_loading

    quiet_loading()
    quantization = (CPU_MODES if device == "cpu" else CUDA_MODES)[mode]
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(mode)
    rss_before = _rss_kb("VmRSS")
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
    try:
        model = load_model(model_dir, quantization=quantization, device=device, dtype=dtype, compile=compile)
    except UserError as err:  # this mode does not apply to this model or machine: a skipped row, not a failure
        return {"mode": mode, "device": device, "skipped": str(err).split(". Fix:")[0]}
    prompt = torch.randint(6, model.config.vocab_size, (1, 16), generator=torch.Generator().manual_seed(0)).to(device)
    kwargs = {"max_new_tokens": new_tokens, "min_new_tokens": new_tokens, "do_sample": False, "pad_token_id": 1}
    model.generate(prompt, **kwargs)  # warm-up (and compilation)
    best = 0.0
    for _ in range(repeats):
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        model.generate(prompt, **kwargs)
        if device == "cuda":
            torch.cuda.synchronize()
        best = max(best, new_tokens / (time.perf_counter() - start))
    peak = (
        torch.cuda.max_memory_allocated() / 2**20
        if device == "cuda"
        else (_rss_kb("VmHWM") - rss_before) / 1024
    )
    return {"mode": mode, "quantization": quantization, "device": device, "weight_mb": weight_bytes(model) / 2**20,
            "peak_mb": peak, "tokens_per_s": best, "threads": torch.get_num_threads()}


def _spawn(model_dir: str, mode: str, device: str, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, "-m", "rusty_hf.inference.bench", "--worker", mode, "--device", device,
           "--model", model_dir, "--new-tokens", str(args.new_tokens), "--repeats", str(args.repeats), "--threads", str(args.threads)]
    if args.compile:
        cmd.append("--compile")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, check=False)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"mode": mode, "device": device, "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(lines[-1])


def _fresh_model(folder: str) -> None:
    import torch

    from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM

    torch.manual_seed(0)
    model = TinyRWKVForCausalLM(TinyRWKVConfig())  # R2 sizes
    with torch.no_grad():  # the zero-initialised projections would make the int8 error trivially 0
        for p in model.parameters():
            if p.dim() == 2 and not p.any():
                p.normal_(0.0, 0.02)
    model.save_pretrained(folder)


def _rows(args: argparse.Namespace, model_dir: str) -> list[dict]:
    import torch

    rows = []
    for mode in CPU_MODES:
        rows.append(_spawn(model_dir, mode, "cpu", args))
        print(_format_row(rows[-1]), flush=True)
    cuda_reason = None if torch.cuda.is_available() else "no CUDA GPU on this machine"
    for mode in CUDA_MODES:
        rows.append(_spawn(model_dir, mode, "cuda", args) if cuda_reason is None else
                    {"mode": mode, "device": "cuda", "skipped": cuda_reason})
        print(_format_row(rows[-1]), flush=True)
    return rows


def _format_row(row: dict) -> str:
    head = f"| {row['device']:<4} | {row['mode']:<8} |"
    if "skipped" in row or "error" in row:
        return f"{head} {'skipped: ' + row['skipped'] if 'skipped' in row else 'error: ' + str(row['error'])} |"
    return f"{head} {row['weight_mb']:9.1f} | {row['peak_mb']:9.1f} | {row['tokens_per_s']:8.1f} |"


def _floors(rows: list[dict]) -> dict:
    by = {(r["device"], r["mode"]): r for r in rows if "tokens_per_s" in r}
    fp32, int8 = by.get(("cpu", "fp32")), by.get(("cpu", "int8"))
    if not (fp32 and int8):
        return {"error": "fp32 or int8 row missing"}
    weight, speed = int8["weight_mb"] / fp32["weight_mb"], int8["tokens_per_s"] / fp32["tokens_per_s"]
    return {"int8_weight_ratio": weight, "int8_weight_ok": weight <= FLOORS["int8_weight_ratio_max"],
            "int8_tokens_ratio": speed, "int8_tokens_ok": speed >= FLOORS["int8_tokens_ratio_min"]}


def format_floors(floors: dict) -> str:
    """The floors as a Markdown table: measured ratio, limit, met or not."""
    if "error" in floors:
        return f"floors: not judged ({floors['error']})"
    rows = [("CPU int8 / fp32 weight memory", floors["int8_weight_ratio"], f"<= {FLOORS['int8_weight_ratio_max']}",
             floors["int8_weight_ok"]),
            ("CPU int8 / fp32 tokens/s", floors["int8_tokens_ratio"], f">= {FLOORS['int8_tokens_ratio_min']}",
             floors["int8_tokens_ok"])]
    lines = ["| floor | measured | limit | status |", "|---|---:|---:|---|"]
    lines += [f"| {name} | {value:.2f} | {limit} | {'met' if ok else 'NOT MET'} |" for name, value, limit, ok in rows]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rusty-bench", description=__doc__.splitlines()[0].split(": ", 1)[1])
    parser.add_argument("--model", help="checkpoint folder (save_pretrained) or Hub id; default: a fresh random R2-size TinyRWKV")
    parser.add_argument("--new-tokens", type=int, default=64, help="tokens generated per timed run (default 64)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per mode after one warm-up; the best counts (default 3)")
    parser.add_argument("--compile", action="store_true", help="torch.compile every mode's forward")
    parser.add_argument("--threads", type=int, default=0, help="torch threads per mode; 0 = torch's default (the cores)")
    parser.add_argument("--out", default=None, help="write the JSON record here (e.g. benchmarks/results/inference.json); default: none")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--device", default="cpu", help=argparse.SUPPRESS)
    return parser


def bench(args: argparse.Namespace) -> int:
    """Run every mode, print the table and the floors, write --out; 1 when a floor fails or a mode errors."""
    if args.new_tokens < 1 or args.repeats < 1 or args.threads < 0:
        raise UserError("need --new-tokens >= 1, --repeats >= 1 and --threads >= 0")
    if args.model:
        from rusty_hf.hub.checkpoints import check_model_source

        args.model = check_model_source(args.model)
    if args.worker:
        print(json.dumps(run_mode(args.model, args.worker, args.device, args.new_tokens, args.repeats, args.compile, args.threads)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = args.model or tmp
        if not args.model:
            _fresh_model(tmp)
        print(f"model: {args.model or 'fresh TinyRWKV, R2 sizes'}; load average {os.getloadavg()[0]:.2f}")
        print("| dev  | mode     | weight MB | peak MB   | tokens/s |")
        print("|------|----------|----------:|----------:|---------:|")
        rows = _rows(args, model_dir)
    floors = _floors(rows)
    print(format_floors(floors))
    if args.out:
        record = {"model": args.model or "fresh TinyRWKV R2 (random init)", "machine": platform.processor() or platform.machine(),
                  "cpus": os.cpu_count(), "load_average": os.getloadavg(), "new_tokens": args.new_tokens,
                  "repeats": args.repeats, "compile": args.compile, "threads": args.threads, "rows": rows, "floors": floors}
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(record, indent=2) + "\n")
        print(f"written to {args.out}")
    failed = any("error" in r for r in rows) or not (floors.get("int8_weight_ok") and floors.get("int8_tokens_ok"))
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from rusty_hf.errors import quiet_upstream_notices

    quiet_upstream_notices()
    return run_cli("rusty-bench", lambda: bench(args), argv)


if __name__ == "__main__":
    sys.exit(main())
