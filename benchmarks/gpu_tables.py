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


def wkv_chunks_h200(root: Path) -> str:
    """The time-chunked WKV (benchmarks/wkv_chunks.py): the kernels per chunk length, then the training step."""
    d = load(root, "gpu_h200_chunks/wkv_chunks.json")
    b32 = load(root, "gpu_h200_chunks/wkv_chunks_steps_b32.json")
    chunks = [c for c in next(iter(d["kernels"].values())) if c != "auto_length"]
    kernel_rows = [[shape.replace("_", " "), str(row["auto_length"]), *(f"{row[c]['ms']:.2f}" for c in chunks)]
                   for shape, row in d["kernels"].items()]
    steps = {**d["steps"], **{k: v for k, v in b32["steps"].items() if k.startswith("B32")}}
    step_rows = [[shape.replace("_", " "), num(row["ours/chunks-auto"]["tokens_per_s"]),
                  num(row["ours/chunks-off"]["tokens_per_s"]), num(row["gpt2"]["tokens_per_s"]),
                  f"{row['ours/chunks-auto']['over_gpt2']:.2f}", f"{row['ours/chunks-off']['over_gpt2']:.2f}"]
                 for shape, row in steps.items()]
    worst = max(d["exactness"]["chunked"].values())
    return (caption("benchmarks/results/gpu_h200_chunks/wkv_chunks.json", d["machine"].get("gpu") or "",
                    "B32 from `wkv_chunks_steps_b32.json`, a second machine",
                    f"chunked vs float64 at B8 T1024: worst relative error {worst:.1e}")
            + table(["WKV forward + backward, bf16 k, v", "auto chunk (steps)", *(f"{c} ms" for c in chunks)],
                    kernel_rows, set(range(1, len(chunks) + 2))) + "\n\n"
            + table(["training step", "ours chunked tok/s", "ours one pass tok/s", "GPT-2 tok/s",
                     "chunked x GPT-2", "one pass x GPT-2"], step_rows, {1, 2, 3, 4, 5}))


def r2_recipes_h200(root: Path) -> str:
    """The r2 SFT recipe at 8 / 32 / 64 packed rows and r2 pretraining, against the bare step of the same call."""
    folder = "gpu_h200_chunks"
    bare = load(root, f"{folder}/packed_recipe_r2_32rows.json")["bare_step"]["tokens_per_s"]
    b8 = load(root, f"{folder}/wkv_chunks_steps_b32.json")["steps"]["B8_T1024_bf16"]["ours/chunks-auto"]["tokens_per_s"]
    rows = []
    for n in (8, 32, 64):
        r = load(root, f"{folder}/packed_recipe_r2_{n}rows.json")["cases"]["recipe"]
        rows.append([f"SFT, {n} packed rows of 1024, lean step", num(r["tokens_per_s"]), f"{r['tokens_per_s'] / bare:.2f}",
                     f"{r['steps']} steps", "1"])
    for name, label in (("r2_pretrain_trl_step.json", "TRL's step"), ("r2_pretrain_lean_step.json", "lean step")):
        r = load(root, f"{folder}/{name}")
        tps = r["train_tokens_per_second_after_warmup"]
        rows.append([f"pretraining, 32 rows x 4 of 1024 (wrapped), {label}", num(tps), f"{tps / b8:.2f}",
                     f"{r['train_steps']} steps", "2" if "trl" in name else "3"])
    return (caption(f"benchmarks/results/{folder}/", "real tokens/s after warm-up; x bare: over ours at B8 T1024 bf16 "
                    f"eager, {num(bare)} tok/s in call 1 and {num(b8)} in call 2 (pretraining)")
            + table(["recipe", "real tok/s", "x bare step", "run", "device call"], rows, {1, 2}))


GPU_TABLES: dict[str, Callable[[Path], str]] = {
    "gpu-claims-h100": _claims("gpu_check_h100"),
    "gpu-train-h100": _train("gpu_check_h100"),
    "gpu-decode-h100": decode_h100,
    "gpu-claims-h200-recipe": _claims("gpu_h200_recipe"),
    "gpu-train-h200-recipe": _train("gpu_h200_recipe"),
    "gpu-compile-h200": _train("gpu_h200", "compile_section.jsonl"),
    "compile-recompile-h200": compile_recompile_h200,
    "r2-pipeline-h200": r2_pipeline_h200,
    "wkv-chunks-h200": wkv_chunks_h200,
    "r2-recipes-h200": r2_recipes_h200,
}
