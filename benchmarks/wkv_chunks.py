"""The WKV kernels cut in time chunks against one pass over each row, and the training step against GPT-2's.

On a GPU the Triton WKV runs one thread per (row, channel) through a loop over time: at B=8 and C=512 that is
4,096 threads on 132 multiprocessors, a chain of T dependent steps each. `wkv_triton.chunk_length` cuts T in
chunks that run in parallel (a local pass, a carry across chunks, a pass from each chunk's true state). This
benchmark, in one run on one device:

- exactness: chunked and one-pass forward (y, final state) and backward (gw, gu, gk, gv) against float64
  (the torch backend) at B8 T1024 C512 with left padding: relative error ||x - ref|| / ||ref||;
- kernels: forward + backward of `wkv` (bf16 k, v as training feeds them) per chunk length (RUSTY_WKV_CHUNK:
  off, fixed lengths, auto) at the training shapes and one packed row;
- step: forward + backward + fused AdamW of ours (chunked and one pass) and GPT-2 of the same width at B8
  T1024 (bf16 autocast and fp32), B8 T4096 bf16 and B32 T1024 bf16 (four times the tokens a step: where the
  host's launches matter less), eager, then compiled (`torch.compile`, fullgraph) at
  B8 T1024 bf16; the models' steps interleaved so a drift of the machine moves them alike.

    python3 benchmarks/wkv_chunks.py                      # a CUDA GPU: writes benchmarks/results/wkv_chunks.json
    TRITON_INTERPRET=1 python3 benchmarks/wkv_chunks.py --device cpu --quick   # the smoke run (tiny sizes)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_speed import Dims, build, env_var, gpu_machine, ids_on, sync, training_step  # noqa: E402
from model_speed import REPO, adamw, interleaved_medians, timed  # noqa: E402

import torch  # noqa: E402

from rusty_hf.models.tiny_rwkv import wkv_triton  # noqa: E402
from rusty_hf.models.tiny_rwkv.wkv import wkv  # noqa: E402
from rusty_hf.models.tiny_rwkv.wkv_torch import WKVFunction  # noqa: E402

Result = dict[str, Any]
FULL = {"exact": (8, 1024, 512), "exact_chunks": ("off", "auto"), "kernels": [(8, 1024, 512), (8, 4096, 512), (64, 1024, 512), (1, 8192, 512)],
        "chunks": ["off", "16", "32", "64", "128", "auto"], "steps": [(8, 1024, "bf16"), (8, 1024, "fp32"), (8, 4096, "bf16"), (32, 1024, "bf16")],
        "compiled": [(8, 1024, "bf16")], "dims": Dims(24000, 512, 4), "warmup": 3, "repeats": 10}
QUICK = {"exact": (2, 24, 40), "exact_chunks": ("off", "4"), "kernels": [(2, 24, 40)], "chunks": ["off", "4", "auto"], "steps": [(2, 24, "fp32")],
         "compiled": [], "dims": Dims(512, 64, 2), "warmup": 1, "repeats": 2}


def inputs(batch: int, steps: int, channels: int, device: str, dtype: torch.dtype, seed: int = 0) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    w = -(torch.rand(channels, generator=gen) * 3 + 0.05)
    u = torch.randn(channels, generator=gen)
    k = torch.randn(batch, steps, channels, generator=gen) * 4
    v = torch.randn(batch, steps, channels, generator=gen)
    return [x.to(device, dtype if x.dim() == 3 else torch.float32).requires_grad_() for x in (w, u, k, v)]


def left_padding(batch: int, steps: int, device: str) -> torch.Tensor:
    """Row i starts after i * steps / (2 * batch) pad steps: rows of every length down to half."""
    start = torch.arange(batch)[:, None] * steps // (2 * batch)
    return (torch.arange(steps)[None, :] >= start).to(device, torch.int64)


def run_wkv(w, u, k, v, mask, gy) -> list[torch.Tensor]:
    y, state = wkv(w, u, k, v, mask=mask)
    return [y, *state, *torch.autograd.grad(y, (w, u, k, v), gy)]


def exactness(shape: tuple[int, int, int], chunks: tuple[str, str], device: str) -> Result:
    batch, steps, channels = shape
    mask = left_padding(batch, steps, device)
    gy = torch.randn(batch, steps, channels, generator=torch.Generator().manual_seed(3)).to(device)
    w, u, k, v = (x.detach().double().requires_grad_() for x in inputs(*shape, device, torch.float32))
    zero = torch.zeros(batch, channels, dtype=torch.float64, device=device)
    y, a, b, p = WKVFunction.apply(w, u, k, v, zero, zero, torch.full_like(zero, -1e38), mask)  # the torch backend
    ref = [y, a, b, p, *torch.autograd.grad(y, (w, u, k, v), gy.double())]
    out: Result = {}
    with env_var("RUSTY_WKV_BACKEND", "triton"):
        for chunk in chunks:
            with env_var(wkv_triton.CHUNK_ENV, None if chunk == "auto" else chunk):
                got = run_wkv(*inputs(*shape, device, torch.float32), mask, gy)
            out["off" if chunk == "off" else "chunked"] = {name: (torch.linalg.vector_norm(g.double() - r) / torch.linalg.vector_norm(r)).item()
                          for name, g, r in zip(("y", "a", "b", "p", "gw", "gu", "gk", "gv"), got, ref)}
    out["chunk_length"] = int(chunks[1]) if chunks[1].isdigit() else wkv_triton.chunk_length(
        batch, steps, channels, torch.device(device))
    return out


def kernel_times(shapes: list[tuple[int, int, int]], chunks: list[str], device: str, plan: Result) -> Result:
    out: Result = {}
    for shape in shapes:
        tensors = inputs(*shape, device, torch.bfloat16 if device == "cuda" else torch.float32)
        gy = torch.randn(shape, device=device)
        runs: dict[str, Callable[[], float]] = {}
        for chunk in chunks:
            def run(chunk: str = chunk) -> None:
                with env_var(wkv_triton.CHUNK_ENV, None if chunk == "auto" else chunk):
                    run_wkv(*tensors, None, gy)
                sync(device)
            runs[chunk] = timed(run)
        key = "B{}_T{}_C{}".format(*shape)
        sync(device)
        medians = interleaved_medians(runs, plan["warmup"], plan["repeats"])
        out[key] = {chunk: {"ms": s * 1e3} for chunk, s in medians.items()}
        out[key]["auto_length"] = wkv_triton.chunk_length(*shape, torch.device(device))
    return out


def step_times(shapes: list[tuple[int, int, str]], device: str, plan: Result, compiled: bool) -> Result:
    """Ours chunked, ours one pass and GPT-2 at each shape, their steps interleaved."""
    out: Result = {}
    dims = plan["dims"]
    for shape in shapes:
        batch, length, dtype = shape
        ids = ids_on(device, dims.vocab, batch, length)
        runs: dict[str, Callable[[], float]] = {}
        for name in ("ours", "gpt2"):
            model = build(name, dims, length).to(device).train()
            opt = adamw(model)
            if compiled:
                model = torch.compile(model, backend="inductor" if device == "cuda" else "aot_eager", fullgraph=True)
            step = training_step(model, opt, ids, device, dtype)
            for chunk in (("auto", "off") if name == "ours" else (None,)):
                def run(step: Callable[[], None] = step, chunk: str | None = chunk) -> None:
                    with env_var(wkv_triton.CHUNK_ENV, None if chunk in (None, "auto") else chunk):
                        step()
                    sync(device)
                runs[f"ours/chunks-{chunk}" if name == "ours" else "gpt2"] = timed(run)
        medians = interleaved_medians(runs, plan["warmup"], plan["repeats"])
        row = {case: {"step_ms": s * 1e3, "tokens_per_s": batch * length / s} for case, s in medians.items()}
        for case in row:
            row[case]["over_gpt2"] = row["gpt2"]["step_ms"] / row[case]["step_ms"]
        out[f"B{batch}_T{length}_{dtype}{'/compiled' if compiled else ''}"] = row
        if compiled:
            torch._dynamo.reset()
    return out


def report(r: Result) -> None:
    print("\nexactness, ||x - ref|| / ||ref|| against float64:")
    ex = r["exactness"]
    names = list(ex["off"])
    print(f"(chunked: {ex['chunk_length']} steps a chunk)")
    print("| chunks | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for chunk in ("off", "chunked"):
        print(f"| {chunk} | " + " | ".join(f"{ex[chunk][n]:.1e}" for n in names) + " |")
    print("\nWKV forward + backward, ms (bf16 k, v on a GPU):")
    for shape, row in r["kernels"].items():
        cells = ", ".join(f"{c} {v['ms']:.3f}" for c, v in row.items() if isinstance(v, dict))
        print(f"  {shape} (auto = {row['auto_length']} steps): {cells}")
    print("\n| shape | case | step ms | tok/s | x GPT-2 |\n|---|---|---|---|---|")
    for shape, row in r["steps"].items():
        for case, v in row.items():
            print(f"| {shape} | {case} | {v['step_ms']:.2f} | {v['tokens_per_s']:,.0f} | {v['over_gpt2']:.3f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sections", nargs="+", default=["exactness", "kernels", "steps", "compiled"])
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results" / "wkv_chunks.json")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("wkv_chunks: no CUDA GPU here; smoke-test with TRITON_INTERPRET=1 ... --device cpu --quick")
        return 0
    plan = QUICK if args.quick else FULL
    r: Result = {"machine": gpu_machine(args.device), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                 "threads_per_sm": wkv_triton.THREADS_PER_SM, "min_chunk": wkv_triton.MIN_CHUNK}
    os.environ.pop(wkv_triton.CHUNK_ENV, None)
    with env_var("RUSTY_WKV_BACKEND", "triton"):
        sections = {"exactness": lambda: exactness(plan["exact"], plan["exact_chunks"], args.device),
                    "kernels": lambda: kernel_times(plan["kernels"], plan["chunks"], args.device, plan),
                    "steps": lambda: step_times(plan["steps"], args.device, plan, compiled=False),
                    "compiled": lambda: step_times(plan["compiled"], args.device, plan, compiled=True)}
        for name in args.sections:
            print(f"{name} ...", flush=True)
            start = time.perf_counter()
            try:
                value = sections[name]()
            except Exception as err:  # noqa: BLE001 - the other sections still run and are written
                value = {"error": f"{type(err).__name__}: {err}"}
                print(f"  {name} failed: {value['error']}", flush=True)
            if name == "compiled" and "error" not in value:
                r.setdefault("steps", {}).update(value)
            else:
                r[name] = value
            r.setdefault("section_s", {})[name] = round(time.perf_counter() - start, 1)
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(json.dumps(r, indent=1, default=str) + "\n")
    if all(k in r and "error" not in r[k] for k in ("exactness", "kernels", "steps")):
        report(r)
    print(f"\nwrote {args.output}")
    bad = [n for n in args.sections if isinstance(r.get(n), dict) and "error" in r[n]]
    worst = max((v for c in ("off", "chunked") for v in r.get("exactness", {}).get(c, {}).values()), default=0.0)
    if worst > 1e-4:
        print(f"wkv_chunks: relative error {worst:.1e} over 1e-4")
    return int(bool(bad) or worst > 1e-4 or worst != worst)


if __name__ == "__main__":
    sys.exit(main())
