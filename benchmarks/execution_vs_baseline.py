"""Benchmark: the execution reward's milliseconds per sample on the reference solutions, this tree against a baseline.

Issue 24 moved the execution reward's verdict out of the sandbox: the tests run on the host and
call into the sandboxed solution over a channel (one round trip per call), where the baseline ran
them inside the sandbox under a harness. This puts a number on that cost, as the reward runs in
GRPO: the registered reward function on a batch of every Python task's reference solution (fenced
like a model's answer), with the default parallelism (the usable cores), every sandbox layer.

The baseline is the reward module and the task tests of a git revision (default ``960a4ce``, the
tree issue 24 probed), loaded from git into a temporary module; both sides use this tree's sandbox.
Rounds come in pairs (baseline first, then this tree first), so that a drift in the machine's speed
hits both alike; the ratio reported is the median over pairs. Both sides must give every reference
1.0, or the run says so. Floor (issue 24): throughput >= 0.8x the baseline's.

Time it on a quiet machine: on the 2 shared cores of the development VMs other jobs move the result
by tens of percent (the load average before and after is recorded).

    python3 benchmarks/execution_vs_baseline.py                  # 4 round pairs, baseline 960a4ce
    python3 benchmarks/execution_vs_baseline.py --rounds 8 --baseline 960a4ce
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards.execution import default_workers, get_execution_reward

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "execution_vs_baseline.json"
FLOOR_THROUGHPUT_RATIO = 0.8


def git_show(rev: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{rev}:{path}"], cwd=REPO, capture_output=True, text=True, check=True).stdout


def baseline_reward(rev: str, workers: int):
    """The baseline revision's ``get_execution_reward(...)``, its module loaded from git under another name."""
    folder = Path(tempfile.mkdtemp(prefix="execution-baseline-"))
    path = folder / "baseline_execution.py"
    path.write_text(git_show(rev, "rusty_hf/rewards/execution.py"))
    spec = importlib.util.spec_from_file_location("baseline_execution", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_execution"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.get_execution_reward(max_workers=workers, timeout=30)


def batches(rev: str) -> tuple[list[str], list[str], list[str]]:
    """(completions, this tree's tests, the baseline's tests) over the tasks both have."""
    completions, tests, old_tests = [], [], []
    for row in load_tasks(language="python"):
        try:
            old = git_show(rev, f"tasks/python/{row['name']}/tests.py")
        except subprocess.CalledProcessError:
            continue  # a task the baseline did not have
        completions.append(f"Here you go.\n```python\n{row['solution']}```\n")
        tests.append(row["tests"])
        old_tests.append(old)
    return completions, tests, old_tests


def timed(reward, completions: list[str], tests: list[str]) -> tuple[float, list]:
    start = time.perf_counter()
    rewards = reward(completions, tests)
    return time.perf_counter() - start, rewards


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="960a4ce", help="git revision of the baseline reward and tests")
    parser.add_argument("--rounds", type=int, default=4, help="round pairs (baseline first, then this tree first)")
    parser.add_argument("--workers", type=int, default=None, help="parallel runs (default: the usable cores)")
    args = parser.parse_args()
    workers = args.workers or default_workers()
    completions, tests, old_tests = batches(args.baseline)
    sides = {"baseline": (baseline_reward(args.baseline, workers), old_tests),
             "this tree": (get_execution_reward(max_workers=workers, timeout=30), tests)}  # fmt: skip
    gc.collect()
    gc.freeze()  # the imports' objects stay out of the collector's full passes (see rewards_speed.py)
    load_before = os.getloadavg()[0]
    for reward, side_tests in sides.values():  # warm-up, untimed: page cache, pools, compiled tests
        reward(completions, side_tests)
    seconds: dict[str, list[float]] = {name: [] for name in sides}
    full_credit = {name: True for name in sides}
    for pair in range(args.rounds):
        for name in list(sides) if pair % 2 == 0 else list(sides)[::-1]:
            t, rewards = timed(sides[name][0], completions, sides[name][1])
            seconds[name].append(t)
            full_credit[name] &= all(r == 1.0 for r in rewards)
    n = len(completions)
    ms = {name: 1000 * statistics.median(s) / n for name, s in seconds.items()}
    pair_ratios = [b / t for b, t in zip(seconds["baseline"], seconds["this tree"])]  # throughput, this tree / baseline
    ratio = statistics.median(pair_ratios)
    summary = {
        "benchmark": "execution_vs_baseline",
        "baseline": args.baseline,
        "samples": n,
        "workers": workers,
        "seconds": seconds,
        "ms_per_sample": ms,
        "throughput_ratio": ratio,
        "throughput_ratio_per_round": pair_ratios,
        "floor_throughput_ratio": FLOOR_THROUGHPUT_RATIO,
        "meets_floor": ratio >= FLOOR_THROUGHPUT_RATIO,
        "references_full_credit": full_credit,
        "load_average_1m": [load_before, os.getloadavg()[0]],
    }
    print(f"execution reward on {n} reference solutions, {workers} workers, {args.rounds} rounds each side")
    for name in sides:
        print(f"  {name:<10} {ms[name]:7.1f} ms/sample   every reference 1.0: {'yes' if full_credit[name] else 'NO'}")
    print(f"  throughput, this tree / baseline: {ratio:.2f}x (per round {', '.join(f'{r:.2f}' for r in pair_ratios)}; "
          f"floor {FLOOR_THROUGHPUT_RATIO})  {'PASS' if summary['meets_floor'] else 'FAIL'}")
    print(f"  1-minute load average before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
