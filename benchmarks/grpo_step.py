"""One GRPO step's split: generation, reward, scoring, update, and rollouts/s, as `recipes/grpo.py` runs (issue 36).

Runs the recipe in its own process for ``--warmup`` + ``--steps`` optimizer steps with ``--log_step_split true``
(`rusty_hf.trainers.step_split`: the trainer's own methods timed, CUDA synchronized at each boundary) and
``--logging_steps 1``, reads the per-step split back from its ``trainer_state.json``, and reports the mean over
the steps after warm-up: seconds per step in each part, each part's share, completions per second. Everything
after ``--`` goes to the recipe unchanged, so the same script measures the tiny recipe on CPU and R2 on a GPU
(generation through the CUDA-graph decoder where the recipe's rollouts use it).

    python3 benchmarks/grpo_step.py --steps 8 -- --config recipes/tiny/grpo.yaml \\
        --model_name_or_path outputs/tiny-sft --tokenizer_name_or_path outputs/tiny-sft \\
        --terminal_cache_dir outputs/terminal_fixtures                       # CPU: the quickstart's GRPO
    python3 benchmarks/grpo_step.py --steps 8 -- --config recipes/r2/grpo.yaml --model_name_or_path OUT/r2-sft

Writes benchmarks/results/grpo_step_<device>.json (or --output) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARTS = ("generation", "reward", "scoring", "update")


def split_of(log_history: list[dict], warmup: int) -> dict:
    """The mean split over the logged steps after the first ``warmup`` (each log one step: ``logging_steps`` 1)."""
    steps = [log for log in log_history if "time/step_s" in log and log.get("step", 0) > warmup]
    if not steps:
        raise SystemExit(f"no step after the {warmup} warm-up steps logged a split: raise --steps, or check that the "
                         "recipe ran with log_step_split (its log is above)")
    mean = {key: sum(log[key] for log in steps) / len(steps) for key in [f"time/{p}_s" for p in (*PARTS, "step")]}
    rollouts = sum(log["rollouts"] for log in steps)
    if not rollouts:
        raise SystemExit(f"none of the {len(steps)} steps after warm-up generated: TRL generates once every "
                         "steps_per_generation x num_iterations steps; raise --steps to a multiple of that")
    step_s = mean["time/step_s"]
    return {"steps": len(steps), "seconds_per_step": round(step_s, 4),
            "parts_s": {p: round(mean[f"time/{p}_s"], 4) for p in PARTS},
            "parts_share": {p: round(mean[f"time/{p}_s"] / step_s, 4) for p in PARTS},
            "rollouts_per_s": round(rollouts / (step_s * len(steps)), 3)}  # completions over time, all steps  # fmt: skip


def table(result: dict) -> str:
    rows = [f"| {p} | {result['parts_s'][p]:.3f} | {result['parts_share'][p]:.1%} |" for p in PARTS]
    return "\n".join(["| part | s/step | share |", "|---|---|---|", *rows,
                      f"| step | {result['seconds_per_step']:.3f} | {result['rollouts_per_s']:.2f} rollouts/s |"])  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8, help="steps measured, after the warm-up")
    parser.add_argument("--warmup", type=int, default=2, help="first steps left out (compilation, caches, allocator)")
    parser.add_argument("--output", type=Path, default=None, help="JSON path (default: results/grpo_step_<device>.json)")
    parser.add_argument("recipe_args", nargs=argparse.REMAINDER, help="after --: the arguments of recipes/grpo.py")
    args = parser.parse_args()
    recipe_args = [a for a in args.recipe_args if a != "--"]
    import torch

    overrides = ["--max_steps", str(args.warmup + args.steps), "--logging_steps", "1", "--log_step_split", "true",
                 "--save_strategy", "no", "--report_to", "none", "--plot_curves", "false"]  # last: they win
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, str(REPO / "recipes/grpo.py"), *recipe_args, "--output_dir", out, *overrides]
        start = time.perf_counter()
        subprocess.run(command, check=True, cwd=REPO, env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
        wall = time.perf_counter() - start
        state = json.loads((Path(out) / "trainer_state.json").read_text())
        trained = torch.load(Path(out) / "training_args.bin", weights_only=False)  # where the recipe ran, not this process
    device = "cpu" if trained.use_cpu or not torch.cuda.is_available() else "cuda"
    result = {"device": device, "torch": torch.__version__, "command": " ".join(["recipes/grpo.py", *recipe_args, *overrides[:6]]),
              "warmup_steps": args.warmup, "process_wall_s": round(wall, 1), **split_of(state["log_history"], args.warmup)}
    print(table(result))
    path = args.output or REPO / "benchmarks/results" / f"grpo_step_{device}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
