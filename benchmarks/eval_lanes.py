"""Benchmark: how the quickstart's evaluations share 2 CPU cores (its evaluation stage runs them in two lanes, one
thread each).

Decoding the tiny model spends its time in Python (the constrained decoder, the copy bias, the sandbox that judges
each action), one core per process: a second torch thread buys nothing, and two processes at two threads each fight
over the cores. This runs the held-out terminal evaluation (`recipes/evaluate.py --suite terminal`) of one model four
ways and times each: alone at the default threads, alone at one thread, two side by side at one thread each, two side
by side at the default threads. Every run writes its report to a temporary folder; the reports of one way must agree
(the evaluation is greedy: the same numbers at any thread count).

    python3 benchmarks/eval_lanes.py --model /tmp/qs98/tiny-grpo --cache_dir /tmp/qs98/terminal_fixtures
    # prints a table, writes benchmarks/results/eval_lanes.json
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

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "eval_lanes.json"
WAYS = (("alone, default threads", 1, None), ("alone, 1 thread", 1, "1"), ("two side by side, 1 thread each", 2, "1"),
        ("two side by side, default threads", 2, None))  # fmt: skip


def run_way(model: str, cache_dir: str, processes: int, threads: str | None, folder: Path) -> tuple[float, list[float]]:
    """Wall seconds of ``processes`` evaluations started together, and each one's held-out seen-values success."""
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false"}
    env.pop("OMP_NUM_THREADS", None)
    if threads is not None:
        env["OMP_NUM_THREADS"] = threads
    outputs = [folder / f"report_{i}.json" for i in range(processes)]
    start = time.perf_counter()
    runs = [subprocess.Popen([sys.executable, str(ROOT / "recipes" / "evaluate.py"), "--suite", "terminal",
                              "--model_name_or_path", model, "--terminal_cache_dir", cache_dir, "--output_file", str(out)],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for out in outputs]  # fmt: skip
    for run in runs:
        _, err = run.communicate()
        if run.returncode != 0:
            raise SystemExit(f"eval_lanes: an evaluation failed (exit {run.returncode}):\n{err[-2000:]}")
    seconds = time.perf_counter() - start
    seen = [json.loads(out.read_text())["parts"]["seen_values"]["first_action_success"]["mean"] for out in outputs]
    return seconds, seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a saved model folder (a quickstart's tiny-sft or tiny-grpo)")
    parser.add_argument("--cache_dir", required=True, help="the terminal fixtures' cache (a quickstart's terminal_fixtures)")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, processes, threads) in enumerate(WAYS):
            folder = Path(tmp) / str(i)
            folder.mkdir()
            seconds, seen = run_way(args.model, args.cache_dir, processes, threads, folder)
            rows.append({"way": label, "processes": processes, "omp_num_threads": threads or "default",
                         "wall_s": round(seconds, 1), "evaluations_per_minute": round(60 * processes / seconds, 2),
                         "seen_values_success": seen})  # fmt: skip
            print(f"{label:36} {seconds:7.1f} s  {60 * processes / seconds:5.2f} evaluations/min  seen {seen}", flush=True)
    same = len({s for row in rows for s in row["seen_values_success"]}) == 1
    report = {"benchmark": "eval_lanes", "command": " ".join(["python3", "benchmarks/eval_lanes.py", *(argv or sys.argv[1:])]),
              "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, torch default threads", "model": args.model,
              "rows": rows, "same_numbers_every_way": same,
              "lanes_speedup": round(rows[0]["wall_s"] * 2 / rows[2]["wall_s"], 2)}  # fmt: skip
    Path(args.output).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"two 1-thread lanes do two evaluations {report['lanes_speedup']}x as fast as one after the other; "
          f"same numbers every way: {same}. Written to {args.output}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
