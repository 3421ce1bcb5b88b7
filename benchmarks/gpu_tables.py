"""Markdown tables of the GPU sessions, from the files each left under benchmarks/results/<session>/.

    from gpu_tables import GPU_TABLES
    print(GPU_TABLES["gpu-claims-h100"](Path(".")))

The claims tables go through ``gpu_claims.table`` (the same verdicts ``gpu_check.sh`` prints), the others read
``gpu_speed.py``'s case lines, ``compile_recompile.py``'s record and the r2 pipeline's ``pipeline.json`` as
they are. Used by ``render_tables.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from result_tables import RESULTS, caption, load, num, table

MODELS = ("ours[triton]/eager", "ours[torch]/eager", "gpt2/eager", "hf_rwkv/eager", "ours[triton]/compiled", "gpt2/compiled")


def _claims(folder: str) -> Callable[[Path], str]:
    def render(root: Path) -> str:
        import gpu_claims  # imports gpu_speed, which imports torch: only when a claims table is rendered

        path = root / RESULTS / folder / "cases.jsonl"
        rows = gpu_claims.table(gpu_claims.load_cases([path]), "cuda", gpu_claims.FULL)
        return caption(f"benchmarks/results/{folder}/cases.jsonl", "`python3 benchmarks/gpu_claims.py` on them") + \
            "\n".join(gpu_claims.markdown(rows))
    return render


def _train(folder: str, name: str = "cases.jsonl") -> Callable[[Path], str]:
    """Training tokens/s per shape (B=8), eager and compiled, from gpu_speed.py's train/compile case lines."""
    def render(root: Path) -> str:
        cells: dict[str, dict[str, str]] = {}
        for case in load(root, f"{folder}/{name}"):
            if case["section"] in ("train", "compile"):
                shape, model = case["case"].split(" ", 1)
                cells.setdefault(shape, {})[model] = "error" if "error" in case else num(case["tokens_per_s"])
        columns = [m for m in MODELS if any(m in row for row in cells.values())]
        rows = [[shape, *(row.get(m, "-") for m in columns)] for shape, row in cells.items()]
        return caption(f"benchmarks/results/{folder}/{name}", "tokens/s") + \
            table(["shape", *columns], rows, set(range(1, len(columns) + 1)))
    return render


def decode_h100(root: Path) -> str:
    cases = [c for c in load(root, "gpu_check_h100/cases.jsonl") if c["section"] == "decode"]
    rows, scaling = [], ""
    for c in cases:
        if c["case"] == "context_scaling":
            scaling = (f"\n\nDecode s/token after {c['contexts'][1]:,} vs {c['contexts'][0]} tokens of context: "
                       f"{c['long_s_per_token'] * 1e3:.2f} vs {c['short_s_per_token'] * 1e3:.2f} ms ({c['long_over_short']:.2f}).")
            continue
        graphs = c.get("graphs") or {}
        rows.append([c["case"], *(num(c[f"b{b}_tokens_per_s"]) for b in (1, 16, 64)),
                     f"{graphs['captures']} / {graphs['replays']:,}" if graphs else "-"])
    by_case = {c["case"]: c for c in cases}
    graphed, eager = by_case.get("ours[triton]"), by_case.get("ours[triton]/no-graphs")
    if graphed and eager:
        rows.append(["CUDA graphs' gain (ours[triton] / no-graphs)",
                     *(f"{graphed[f'b{b}_tokens_per_s'] / eager[f'b{b}_tokens_per_s']:.1f}x" for b in (1, 16, 64)), ""])
    return (caption("benchmarks/results/gpu_check_h100/cases.jsonl", "`generate`, 128 new tokens")
            + table(["model", "batch 1 tok/s", "batch 16 tok/s", "batch 64 tok/s", "graph captures / replays"], rows,
                    {1, 2, 3}) + scaling)


def compile_recompile_h200(root: Path) -> str:
    d = load(root, "gpu_h200/compile_recompile.json")
    rows = [[r["layout"], f"B{r['batch']} T{r['seqlen']}", "yes" if r["ok"] else f"no: {r['error']}", f"{r['seconds']:g}"]
            for r in d["rows"]]
    return (caption("benchmarks/results/gpu_h200/compile_recompile.json", d["gpu"], f"torch {d['torch']}", d["backend"],
                    "both shapes compiled in one process, in order")
            + table(["mixing weights", "shape", "compiles", "s"], rows, {3}))


def r2_pipeline_h200(root: Path) -> str:
    d = load(root, "gpu_h200/r2_pipeline.json")
    rows = [[s["stage"], str(s["seconds"]), str(s.get("steps", "")), num(s["tokens_per_second"]) if "tokens_per_second" in s
             else ""] for s in d["stages"]]
    rows.append([f"**train, in all** (budget {d['budget_min']:g} min)", str(d["total_seconds"]), "", ""])
    r = d["results"]
    lift = r["grpo_python_pass@1_lift"]
    results = [
        ["pretraining held-out bits per byte", f"{r['pretrain_eval_bits_per_byte']:.3f}"],
        ["held-out Python pass@1, before -> after GRPO", f"{lift['before']:.3f} -> {lift['after']:.3f}"],
        ["held-out reward, before -> after GRPO",
         f"{r['reward_before']:.3f} -> {r['reward_after']:.3f} ({r['reward_gain']:+.3f} ± {r['reward_gain_stderr']:.3f})"],
    ]
    if d.get("rust_skipped"):
        results.append(["Rust", "skipped: " + d["rust_skipped"].split(" (")[0]])
    return (caption("benchmarks/results/gpu_h200/r2_pipeline.json")
            + table(["stage", "seconds", "steps", "tokens/s"], rows, {1, 2, 3}) + "\n\n"
            + table(["result", "value"], results, {1}))


GPU_TABLES: dict[str, Callable[[Path], str]] = {
    "gpu-claims-h100": _claims("gpu_check_h100"),
    "gpu-train-h100": _train("gpu_check_h100"),
    "gpu-decode-h100": decode_h100,
    "gpu-claims-h200-recipe": _claims("gpu_h200_recipe"),
    "gpu-train-h200-recipe": _train("gpu_h200_recipe"),
    "gpu-compile-h200": _train("gpu_h200", "compile_section.jsonl"),
    "compile-recompile-h200": compile_recompile_h200,
    "r2-pipeline-h200": r2_pipeline_h200,
}
