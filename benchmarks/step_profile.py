"""Where a training step's time goes: ours against GPT-2 at the same width, by family of operation.

torch.profiler over a few steps (forward + backward + fused AdamW, bf16 autocast on CUDA) of each model at
one shape; each kernel's device time (CPU time on a CPU) is put in a family by its name, and the table
gives ms per step for each family and model.

    python3 benchmarks/step_profile.py --device cuda                    # R2 dims, B8 T1024 bf16
    python3 benchmarks/step_profile.py --device cpu --batch 2 --seqlen 64 --width 64 --layers 2 --vocab 512

Writes benchmarks/results/step_profile_<device>.json (or --output).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

# first match wins; names are kernel names on CUDA and aten op names on CPU
FAMILIES = [
    ("wkv", r"wkv|_fwd_kernel|_bwd_kernel|rusty"),
    ("attention", r"flash|attention|softmax|fmha|sdpa|efficient"),
    ("matmul", r"gemm|matmul|mm\b|aten::mm|aten::addmm|aten::bmm|cutlass|sm90_xmma|nvjet|linear"),
    ("optimizer", r"adam|multi_tensor|foreach"),
    ("loss", r"cross_entropy|log_softmax|nll_loss"),
    ("norm", r"layer_norm|layernorm|norm"),
    ("copy / cast / index", r"copy|cast|to_copy|cat|index|gather|scatter|contiguous|fill|zero"),
    ("elementwise", r"elementwise|vectorized|add|mul|sigmoid|exp|relu|pow|sub|div|where|neg|gelu|tanh|reduce|sum"),
]


def family(name: str) -> str:
    lowered = name.lower()
    for fam, pattern in FAMILIES:
        if re.search(pattern, lowered):
            return fam
    return "other"


def profile_model(name: str, dims, shape, device: str, steps: int) -> dict:
    from gpu_speed import build, ids_on, training_step
    from model_speed import adamw

    batch, seqlen, dtype = shape
    model = build(name, dims, seqlen).to(device).train()
    step = training_step(model, adamw(model), ids_on(device, dims.vocab, batch, seqlen), device, dtype)
    for _ in range(3):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities) as prof:
        for _ in range(steps):
            step()
        if device == "cuda":
            torch.cuda.synchronize()
    per_family: dict[str, float] = {}
    kernels = 0
    for event in prof.key_averages():
        if device == "cuda":
            us = event.self_device_time_total if hasattr(event, "self_device_time_total") else event.self_cuda_time_total
            if us <= 0:
                continue
            kernels += event.count
        else:
            if not event.key.startswith(("aten::", "rusty_hf")):  # torch's ops and the WKV custom op
                continue
            us = event.self_cpu_time_total
        fam = family(event.key)
        per_family[fam] = per_family.get(fam, 0.0) + us / 1000 / steps
    return {"ms_per_step": per_family, "total_ms": sum(per_family.values()),
            "kernels_per_step": kernels / steps if device == "cuda" else None,
            "top": sorted(((e.key[:80], round((getattr(e, "self_device_time_total", 0) if device == "cuda" else e.self_cpu_time_total) / 1000 / steps, 3))
                           for e in prof.key_averages()), key=lambda kv: -kv[1])[:15]}  # fmt: skip


def main() -> int:
    from gpu_speed import Dims

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seqlen", type=int, default=1024)
    parser.add_argument("--dtype", default=None, help="bf16 or fp32 (default: bf16 on CUDA, fp32 on CPU)")
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=24000)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args()
    dtype = args.dtype or ("bf16" if args.device == "cuda" else "fp32")
    dims, shape = Dims(args.vocab, args.width, args.layers), (args.batch, args.seqlen, dtype)
    result = {"device": args.device, "shape": list(shape), "dims": vars(dims), "models": {}}
    if args.device == "cuda":
        result["gpu"] = torch.cuda.get_device_name()
    for name in ("ours", "gpt2"):
        print(f"profiling {name} ...", flush=True)
        result["models"][name] = profile_model(name, dims, shape, args.device, args.steps)
    fams = sorted({f for m in result["models"].values() for f in m["ms_per_step"]},
                  key=lambda f: -result["models"]["ours"]["ms_per_step"].get(f, 0))
    unit = "device ms" if args.device == "cuda" else "CPU ms"
    print(f"\n{shape} width {args.width} x {args.layers} layers, vocab {args.vocab}: {unit} per step\n")
    print("| family | ours | GPT-2 |\n|---|---|---|")
    for fam in fams:
        o, g = (result["models"][m]["ms_per_step"].get(fam, 0.0) for m in ("ours", "gpt2"))
        print(f"| {fam} | {o:.2f} | {g:.2f} |")
    print(f"| **total** | {result['models']['ours']['total_ms']:.2f} | {result['models']['gpt2']['total_ms']:.2f} |")
    for name in ("ours", "gpt2"):
        print(f"\n{name}: top kernels (ms/step)")
        for key, ms in result["models"][name]["top"][:10]:
            print(f"  {ms:8.3f}  {key}")
    out = args.output or REPO / "benchmarks" / "results" / f"step_profile_{args.device}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
