"""Benchmark: what the Rust reward's test harness costs per program, against the pipeline it replaced.

Issue 24 replaced "build the program with its tests, run the test binary once, read its last
``test result: N passed`` line" (a line the program can print itself) by the harness of
``rusty_hf/rewards/rust/harness.py``: the tests record values, each runs in a process of its own,
and the host compares the records with the reference solution's. This script times both on the
same programs, in the same run, on the same machine:

* ``baseline``: the old pipeline, reproduced here (``BASELINE_SCRIPT``: the clippy check, one
  ``rustc --test`` of program + tests, one run of the binary), through the same sandbox and limits;
* ``harness``: :func:`compile_rust` with the task's reference, whose records are computed before the
  timing starts (as in training, where each task's reference runs once and is cached); what that
  costs per task is reported on its own.

Programs: every Rust task's reference solution (all tests pass) and its ``todo!()`` stub (every test
panics: the wrong answers RL produces most), scored by a pool of ``default_rust_workers()`` threads
as the reward does. Passes alternate baseline/harness, order flipped each round; the table shows
medians of ms per program (wall time of a pass / programs) and the ratio harness / baseline.

    python3 benchmarks/rust_tests_speed.py [--rounds 3] [--tasks 64]   # writes results/rust_tests_speed.json

Time it on an idle machine: on 2 shared cores, other work moves every number.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rusty_hf.data.tasks import load_tasks  # noqa: E402
from rusty_hf.rewards.rust.reward import default_rust_workers  # noqa: E402
from rusty_hf.rewards.rust.compiler import DEFAULT_LIMITS, EDITION, FORCED_LINTS, compile_rust, reference_frames  # noqa: E402
from rusty_hf.rewards.rust.harness import ReferenceCache  # noqa: E402
from rusty_hf.rewards.rust.toolchain import find_toolchain  # noqa: E402
from rusty_hf.sandbox import run  # noqa: E402
from tests.test_tasks import rust_stub  # noqa: E402  (every function body replaced by todo!())

RESULTS = Path(__file__).resolve().parent / "results" / "rust_tests_speed.json"

# The pipeline before issue 24 (rust_compile._SCRIPT at 960a4ce), for the comparison only.
BASELINE_SCRIPT = f"""
check="$1"; rustc="$2"; libdir="$3"; shift 3
"$check" --edition {EDITION} --crate-type lib --crate-name solution --emit=metadata \
  --error-format=json --cap-lints warn "$@" -o solution.rmeta solution.rs || exit 1
echo "@@rusty-phase:test-build" >&2
"$rustc" --edition {EDITION} --test --crate-name solution --error-format=json --cap-lints allow \
  -C debuginfo=0 -C prefer-dynamic -o tests_bin with_tests.rs || exit 1
echo "@@rusty-phase:test-run" >&2
LD_LIBRARY_PATH="$libdir" exec ./tests_bin 2>/dev/null
"""


def baseline(toolchain, code: str, tests: str) -> float:
    check = toolchain.clippy_driver or toolchain.rustc
    lints = [*FORCED_LINTS, *(["clippy::all"] if toolchain.clippy_driver else [])]
    argv = ["/bin/sh", "-c", BASELINE_SCRIPT, "sh", check, toolchain.rustc, toolchain.target_libdir]
    argv += [arg for lint in lints for arg in ("--force-warn", lint)]
    files = {"solution.rs": code, "with_tests.rs": f"{code}\n\n{tests}"}
    result = run(argv, files=files, timeout=120, limits=DEFAULT_LIMITS, ro_paths=[toolchain.sysroot])
    return float("test result: ok." in result.stdout)


def harness(toolchain, references: ReferenceCache, code: str, task: dict) -> float:
    result = compile_rust(code, tests=task["tests"], reference=task["solution"], toolchain=toolchain,
                          timeout=120, references=references)  # fmt: skip
    return result.test_fraction


def timed_pass(fn, jobs: list, workers: int) -> tuple[float, list]:
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        out = list(pool.map(fn, jobs))
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=64, help="the first N Rust tasks")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    toolchain, workers = find_toolchain(), args.workers or default_rust_workers()
    tasks = list(load_tasks(language="rust"))[: args.tasks]
    references = ReferenceCache()
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda t: reference_frames(t["solution"], t["tests"], toolchain=toolchain, cache=references), tasks))
    reference_ms = 1000 * (time.perf_counter() - start) / len(tasks)
    kinds = {"reference": [(t["solution"], t) for t in tasks], "stub": [(rust_stub(t["solution"]), t) for t in tasks]}
    runs = {
        "baseline": lambda job: baseline(toolchain, job[0], job[1]["tests"]),
        "harness": lambda job: harness(toolchain, references, job[0], job[1]),
    }
    ms: dict[str, list[float]] = {f"{r}/{k}": [] for r in runs for k in kinds}
    credit: dict[str, float] = {}
    for round_ in range(args.rounds):
        for name in runs if round_ % 2 == 0 else reversed(list(runs)):
            for kind, jobs in kinds.items():
                seconds, fractions = timed_pass(runs[name], jobs, workers)
                ms[f"{name}/{kind}"].append(1000 * seconds / len(jobs))
                credit[f"{name}/{kind}"] = sum(fractions) / len(fractions)
    medians = {key: statistics.median(values) for key, values in ms.items()}
    summary = {
        "machine": platform.node(), "cpus": os.cpu_count(), "load_at_start": os.getloadavg()[0],
        "tasks": len(tasks), "workers": workers, "rounds": args.rounds,
        "ms_per_program": ms, "median_ms_per_program": medians,
        "ratio_harness_over_baseline": {k: medians[f"harness/{k}"] / medians[f"baseline/{k}"] for k in kinds},
        "reference_ms_per_task_once": reference_ms, "mean_test_credit": credit,
    }  # fmt: skip
    print(f"{len(tasks)} Rust tasks, {workers} workers, {args.rounds} rounds; load at start {summary['load_at_start']:.2f}")
    print(f"{'programs':<12}{'baseline ms':>14}{'harness ms':>13}{'ratio':>8}")
    for kind in kinds:
        b, h = medians[f"baseline/{kind}"], medians[f"harness/{kind}"]
        print(f"{kind:<12}{b:>14.0f}{h:>13.0f}{h / b:>8.2f}")
    print(f"reference records: {reference_ms:.0f} ms per task, once (cached); credit: {credit}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
