"""The SFT recipe padded, padding-free and packed, beside the model's bare training step and an older commit's
recipe, in one run.

Each case runs `recipes/sft.py` in its own process for the same number of optimizer steps and reads the
tokens/s it logs (real tokens: TRL counts no padding) after warm-up; the bare step is forward + backward +
fused AdamW at a fixed (batch, length) on the same model, as `gpu_speed.py` measures it. Cases:

- recipe: the recipe as its YAML has it (tiny: padding-free rows; r2: packed rows);
- baseline: the recipe as its YAML had it at `--baseline_commit` (that commit's code and YAML, checked out in a
  temporary git worktree): the "old recipe" a speed floor is measured against;
- padded: rows padded per micro-batch (the shared system prompt run once per batch, `training/shared_prefix.py`);
- padding_free: each micro-batch's rows, as the sampler drew them, in one row without padding;
- packed: TRL's `packing=True` (best-fit decreasing, padding-free rows, `position_ids` restarting at each
  document) with the documents' shared prompt run once per row;
- packed_no_share: the same rows with every document read from its first token (`--share_prompt_state false`);
- packed_trl_step: packed_no_share with TRL's own SFTTrainer step (`--lean_step false`: its metrics turned
  into Python floats every micro-batch, a host sync each) instead of `training/lean_sft.py`'s.

On CPU the ratio that matters is the recipe's time for the same tokens: baseline tok/s over a case's tok/s is
that case's share of the old recipe's wall time. On a GPU it is each recipe over the bare step.

    python3 benchmarks/packed_recipe.py --recipe tiny --tokenizer outputs/tokenizer --steps 80 \
        --cases baseline recipe padded --baseline_commit 01fb97c                                    # CPU, the quickstart's SFT
    python3 benchmarks/packed_recipe.py --recipe r2 --device cuda --tokenizer TOK --dataset ROWS   # a GPU, prepared r2 rows

Writes benchmarks/results/packed_recipe_<recipe>_<device>.json (or --output) and prints a table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO))

# (recipe config, bare-step shape, padded args, packed args): packed rows carry about the padded step's tokens
RECIPES = {
    "tiny": ("recipes/tiny/sft.yaml", (8, 160, "fp32"), ["--padding_free", "false", "--packing", "false"],
             ["--padding_free", "false", "--packing", "true", "--per_device_train_batch_size", "1", "--max_length", "640"]),
    "r2": ("recipes/r2/sft.yaml", (8, 1024, "bf16"), ["--optim", "adamw_torch_fused", "--packing", "false"],
           ["--optim", "adamw_torch_fused", "--packing", "true", "--per_device_train_batch_size", "8"]),
}


@contextlib.contextmanager
def worktree(commit: str):
    """A temporary checkout of ``commit`` (git worktree), removed afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", str(path), commit], cwd=REPO, check=True,
                       capture_output=True)
        try:
            yield path
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=REPO, capture_output=True)


def recipe_case(config: str, args: list[str], steps: int, tokenizer: str, dataset: str | None, device: str,
                extra: list[str], work: Path, repo: Path = REPO) -> dict:
    out = work / "run"
    argv = [sys.executable, "recipes/sft.py", "--config", config, "--tokenizer_name_or_path", tokenizer,
            "--output_dir", str(out), "--max_steps", str(steps), "--save_strategy", "no", "--report_to", "none",
            "--logging_steps", "10", *(["--dataset_name", dataset] if dataset else []),
            *(["--use_cpu", "true", "--bf16", "false"] if device == "cpu" else []), *args, *extra]
    path = os.pathsep.join(p for p in (str(repo), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
        return {"error": lines[-1], "tail": "\n".join(lines[-15:]), "command": " ".join(argv[1:])}
    metrics = json.loads((out / "train_results.json").read_text())
    state = out / "trainer_state.json"
    logged = [e["loss"] for e in json.loads(state.read_text())["log_history"] if "loss" in e] if state.exists() else []
    after_warmup = metrics.get("train_tokens_per_second_after_warmup")  # None for a run too short to warm up
    return {"tokens_per_s": after_warmup or metrics.get("train_tokens_per_second"), "after_warmup": after_warmup is not None,
            "whole_run_tokens_per_s": metrics.get("train_tokens_per_second"), "tokens": metrics.get("train_num_tokens"),
            "steps": metrics.get("train_steps"), "train_runtime_s": metrics.get("train_runtime"),
            "process_wall_s": round(wall, 1), "train_loss": metrics.get("train_loss"),
            "last_logged_loss": logged[-1] if logged else None, "command": " ".join(argv[1:])}


def bare_step(config: str, shape: tuple[int, int, str], tokenizer: str, device: str) -> dict:
    import yaml
    from gpu_speed import FULL, Dims, train_case
    from transformers import AutoTokenizer

    cfg = yaml.safe_load((REPO / config).read_text())
    vocab = len(AutoTokenizer.from_pretrained(tokenizer))
    dims = Dims(vocab=vocab, width=cfg["d_hidden"], layers=cfg["n_layers"])
    try:
        return train_case("ours", None, False, shape, dims, device, FULL) | {"shape": list(shape), "vocab": vocab}
    except Exception as err:  # noqa: BLE001 - the recipe cases still count
        return {"error": f"{type(err).__name__}: {err}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recipe", choices=sorted(RECIPES), default="tiny")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tokenizer", required=True)
    parser.add_argument("--dataset", help="prepared rows (recipes/sft.py --save_prepared_to); default: the recipe builds its mix")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--config", help="the recipe's YAML (default: the recipe's own), e.g. a copy without a key an older transformers lacks")
    parser.add_argument("--cases", nargs="+", default=["recipe", "padded", "packed", "packed_no_share", "packed_trl_step"],
                        choices=["baseline", "recipe", "padded", "padding_free", "packed", "packed_no_share",
                                 "packed_trl_step"])
    parser.add_argument("--baseline_commit", help="the commit whose recipe the baseline case runs (e.g. 01fb97c)")
    parser.add_argument("--no_bare", action="store_true", help="skip the bare step")
    parser.add_argument("--output", type=Path)
    parser.add_argument("extra", nargs="*", help="after --: more recipe arguments for every case")
    args = parser.parse_args()
    config, shape, padded_args, packed_args = RECIPES[args.recipe]
    config = args.config or config
    if "baseline" in args.cases and not args.baseline_commit:
        parser.error("the baseline case needs --baseline_commit")
    case_args = {"baseline": [], "recipe": [], "padded": padded_args,
                 "padding_free": ["--padding_free", "true", "--packing", "false"], "packed": packed_args,
                 "packed_no_share": [*packed_args, "--share_prompt_state", "false"],
                 "packed_trl_step": [*packed_args, "--share_prompt_state", "false", "--lean_step", "false"]}
    result: dict = {"recipe": args.recipe, "device": args.device, "steps": args.steps, "cases": {},
                    "baseline_commit": args.baseline_commit}
    if not args.no_bare:
        print(f"bare step {shape} ...", flush=True)
        result["bare_step"] = bare_step(config, shape, args.tokenizer, args.device)
    for case in args.cases:
        print(f"{case} ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp, \
                (worktree(args.baseline_commit) if case == "baseline" else contextlib.nullcontext(REPO)) as repo:
            result["cases"][case] = recipe_case(config, case_args[case], args.steps, args.tokenizer, args.dataset,
                                                args.device, args.extra, Path(tmp), repo)
    bare = result.get("bare_step", {}).get("tokens_per_s")
    reference = "baseline" if "baseline" in result["cases"] else "padded"
    padded = result["cases"].get(reference, {}).get("tokens_per_s")
    print(f"\n| case | real tok/s after warm-up | whole run | x {reference} | x bare step | train loss |\n|---|---|---|---|---|---|")
    if bare:
        print(f"| bare step {shape} | {bare:,.0f} | | | 1.00 | |")
    for case, r in result["cases"].items():
        tps = r.get("tokens_per_s")
        if "error" in r or tps is None:
            print(f"| {case} | error: {r.get('error')} | | | | |")
            continue
        r[f"over_{reference}"] = tps / padded if padded else None
        r["over_bare_step"] = tps / bare if bare else None
        print(f"| {case} | {tps:,.0f} | {r['whole_run_tokens_per_s']:,.0f} | "
              f"{r[f'over_{reference}'] or 0:.2f} | {r['over_bare_step'] or 0:.3f} | {r['train_loss']:.3f} |")
    for case, r in result["cases"].items():
        if case != reference and padded and r.get("tokens_per_s"):
            r["wall_time_share_same_tokens"] = padded / r["tokens_per_s"]
            print(f"{case} takes {r['wall_time_share_same_tokens']:.2f}x the {reference} recipe's time for the same tokens")
    out = args.output or REPO / "benchmarks" / "results" / f"packed_recipe_{args.recipe}_{args.device}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0 if all("error" not in r for r in result["cases"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
