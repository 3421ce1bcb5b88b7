"""Does a compiled TinyRWKV training step survive a second compile in the same process?

On an H100 and an H200 (torch 2.11.0+cu130), with the token-shift mixing weights (`time_mix_*`) as
(1, 1, C) parameters, the first `torch.compile(model, fullgraph=True)` training step passed and any second one
(a new model or a new sequence length, `dynamic=False` included) failed in backward: "CompiledFunctionBackward
returned an invalid gradient at index 7 - got [512] but expected shape compatible with [1, 1, 512]". As (C,)
parameters both passed (benchmarks/results/gpu_check_h100/compile_recompile_h200.txt), so the model now holds
them as (C,) (files keep (1, 1, C): `modeling_tiny_rwkv._MixLayout`). This script checks both layouts, one
row per (layout, shape): the model as shipped, and with the weights put back to (1, 1, C) as the witness:

    python3 benchmarks/compile_recompile.py                          # CUDA, inductor, R2 width, 1 layer
    python3 benchmarks/compile_recompile.py --device cpu --backend aot_eager --width 32 --vocab 256 --seqlens 16 48

It prints a table and writes JSON (`--output`, default benchmarks/results/compile_recompile.json).
Exit status 1 when the model as shipped fails a shape.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
from torch import nn

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM  # noqa: E402
from rusty_hf.models.tiny_rwkv.modeling_tiny_rwkv import MIX_WEIGHTS  # noqa: E402


def unflatten_time_mix(model: nn.Module) -> None:
    """The mixing weights as (1, 1, C) parameters: the layout that failed on the H100 and the H200."""
    for module in model.modules():
        for name in MIX_WEIGHTS:
            if isinstance(getattr(module, name, None), nn.Parameter):
                setattr(module, name, nn.Parameter(getattr(module, name).detach().reshape(1, 1, -1).clone()))


SHIPPED = "time_mix (C,), as shipped"
LAYOUTS = {SHIPPED: None, "time_mix (1, 1, C), before": unflatten_time_mix}  # layout -> what is done to a fresh model


def step(layout: str, batch: int, seqlen: int, args: argparse.Namespace) -> dict:
    config = TinyRWKVConfig(vocab_size=args.vocab, d_embed=args.width // 2, d_hidden=args.width, n_layers=args.layers)
    start = time.perf_counter()
    try:
        model = TinyRWKVForCausalLM(config)
        if LAYOUTS[layout] is not None:
            LAYOUTS[layout](model)
        compiled = torch.compile(model.to(args.device), backend=args.backend, fullgraph=True)
        ids = torch.randint(0, args.vocab, (batch, seqlen), device=args.device)
        with torch.autocast(args.device, dtype=torch.bfloat16):
            loss = compiled(input_ids=ids, labels=ids).loss
        loss.backward()
        wrong = [n for n, p in model.named_parameters() if p.grad is None or p.grad.shape != p.shape]
        error = f"gradients missing or misshapen: {wrong}" if wrong else None
    except Exception as err:  # the failure under study is an exception in backward
        error = f"{type(err).__name__}: {err}"[:300]
    return {"layout": layout, "batch": batch, "seqlen": seqlen, "ok": error is None, "error": error,
            "seconds": round(time.perf_counter() - start, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    parser.add_argument("--backend", default="inductor", help="torch.compile backend (aot_eager on CPU is fast)")
    parser.add_argument("--width", type=int, default=512, help="d_hidden (d_embed is half)")
    parser.add_argument("--layers", type=int, default=1, help="blocks (1 keeps each compile short)")
    parser.add_argument("--vocab", type=int, default=24000, help="vocabulary size")
    parser.add_argument("--batch", type=int, default=8, help="rows per step")
    parser.add_argument("--seqlens", type=int, nargs="+", default=[1024, 2048], help="one compile per length, in order")
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks/results/compile_recompile.json", help="JSON record")
    args = parser.parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        print("compile_recompile: no CUDA GPU here; pass --device cpu --backend aot_eager for the CPU smoke run")
        return 0
    rows = []
    for layout in LAYOUTS:
        torch._dynamo.reset()  # each layout starts from a process-fresh compiler cache
        rows += [step(layout, args.batch, seqlen, args) for seqlen in args.seqlens]
    print("| layout | batch x seqlen | compiled step | seconds |\n|---|---|---|---:|")
    for row in rows:
        print(f"| {row['layout']} | {row['batch']} x {row['seqlen']} | {'ok' if row['ok'] else row['error']} | {row['seconds']} |")
    record = {"torch": torch.__version__, "device": args.device, "backend": args.backend,
              "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None, "rows": rows}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {args.output}")
    return 0 if all(row["ok"] for row in rows if row["layout"] == SHIPPED) else 1


if __name__ == "__main__":
    sys.exit(main())
