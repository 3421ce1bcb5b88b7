"""Benchmark: how fast the execution reward scores a batch, and what the sandbox costs.

One run measures, on the cores this process may use (2 on the reference machines):

* ``execution_reward`` on a batch of 64 distinct short completions -- reference solutions and
  stub solutions (every function returning None) of the Python tasks, half and half -- with
  every isolation layer this host offers: task evaluations per second;
* the same 64 test runs, the same server, host-side tests and interpreter flags (``python -S``), over
  a bare subprocess's stdin/stdout (its own session, a temp dir on tmpfs like the sandbox's in-memory
  work dir, no sandbox), on a thread pool of the same size: the isolation overhead is the ratio of
  wall times;
* the same runs through the sandbox with layers switched off (or set up the slower way) one at a
  time, interleaved round by round, to show where the overhead goes.

Each round pairs a bare and a sandboxed pass, so that load from other work on the machine and
drifts in its speed hit both alike. The order alternates, and rounds come in pairs (bare-sandboxed,
then sandboxed-bare): here a pass runs ~10% faster after a pass of its own kind than after the
other kind, so only a pair of rounds sees both orders. The overhead reported is the median over
round pairs of (sandboxed seconds / bare seconds); the rates are medians over rounds. The objects
of the imports are frozen out of the garbage collector first (``gc.freeze``): a full collection
of them takes ~275 ms and would land in one pass. Floors (issue 3): >= 12 evaluations/s,
overhead <= 1.3x.

The Rust section measures ``rust_reward`` (rustc + clippy + tests in the sandbox, tree-sitter
metrics) on the Rust tasks: each reference solution with its tests, and a copy that does not
compile (an undefined name appended), so half the set stops after the check-only pass:

* fresh completions/s: a new reward (empty cache) per round, the median round kept, with the
  reward's default parallelism (``default_rust_workers``: twice the cores) unless ``--workers``;
* cache hits/s: the same batch scored again by a warm reward;
* ordering on a fixed set: idiomatic documented code > compiling code full of unwrap > code that
  does not compile > text that is not Rust.

Floors (Rust reward issue): >= 3 fresh completions/s on 2 cores, >= 1000 cache hits/s.

    python3 benchmarks/rewards_speed.py            # prints tables, writes benchmarks/results/rewards_speed.json
    python3 benchmarks/rewards_speed.py --rounds 8
    python3 benchmarks/rewards_speed.py --sections rust
"""

from __future__ import annotations

import argparse
import ast
import gc
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards.python_exec.execution import (
    SERVER_ARGV,
    SOLUTION_FILE,
    default_workers,
    get_execution_reward,
    sandbox_files,
)
from rusty_hf.rewards.python_exec.host_tests import TestReport, run_tests
from rusty_hf.rewards.python_exec.remote import Remote
from rusty_hf.rewards.rust.reward import default_rust_workers, get_rust_reward
from rusty_hf.sandbox import capabilities, run
from rusty_hf.sandbox.capabilities import detect
from rusty_hf.sandbox.channel import Channel

BATCH = 64
FLOOR_EVALS_PER_S = 12.0
FLOOR_OVERHEAD = 1.3
FLOOR_RUST_FRESH_PER_S = 3.0
FLOOR_RUST_HITS_PER_S = 1000.0
RESULTS = Path(__file__).resolve().parent / "results" / "rewards_speed.json"


def stub(solution: str) -> str:
    names = [n.name for n in ast.parse(solution).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    return "".join(f"def {name}(*a, **k):\n    return None\n\n" for name in names)


def make_batch(size: int = BATCH) -> tuple[list[str], list[str], list[str]]:
    """(completions, tests, codes): half references, half stubs, all distinct, fenced like a model answer."""
    rows = list(load_tasks(language="python"))[: size // 2]
    if len(rows) * 2 < size:
        raise SystemExit(f"need {size // 2} Python tasks for a batch of {size}, found {len(rows)}")
    codes = [r["solution"] for r in rows] + [stub(r["solution"]) for r in rows]
    tests = [r["tests"] for r in rows] * 2
    completions = [f"Here you go.\n```python\n{code}```\n" for code in codes]
    return completions, tests, codes


# The sandbox keeps its work dir in memory; give the bare run the same, so only isolation differs.
BARE_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None


def bare_run(code: str, tests: str) -> float:
    """The same server and host-side tests over a plain subprocess's stdin/stdout in a temp dir; the passed fraction."""
    with tempfile.TemporaryDirectory(dir=BARE_TMP) as work:
        for name, content in {**sandbox_files(), SOLUTION_FILE: code.encode()}.items():
            Path(work, name).write_bytes(content)
        proc = subprocess.Popen(
            list(SERVER_ARGV), cwd=work, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # like the sandbox: with sched_autogroup a session is its own CPU share
        )  # fmt: skip
        channel = Channel(proc.stdin, proc.stdout, deadline=time.monotonic() + 30)
        try:
            report = run_tests(tests, Remote(channel))
        finally:
            channel.close()
            proc.kill()
            proc.wait()
    return _fraction(report)


def sandbox_run(code: str, tests: str, caps) -> float:
    files = {**sandbox_files(), SOLUTION_FILE: code}
    session = lambda channel: run_tests(tests, Remote(channel))  # noqa: E731
    result = run(list(SERVER_ARGV), files=files, timeout=30, caps=caps, session=session)
    return _fraction(result.session_result)


def _fraction(report: TestReport | None) -> float:
    return report.passed / report.total if report and report.total and report.broken is None else 0.0


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def busy_cpu_seconds() -> float | None:
    """CPU time the whole machine spent busy so far (/proc/stat): every process and kernel thread."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


def timed_cpu(fn, cpu: list[float]) -> tuple[float, object]:
    """``timed``, also appending the machine's busy CPU seconds during the call to ``cpu``."""
    before = busy_cpu_seconds()
    t, out = timed(fn)
    after = busy_cpu_seconds()
    if before is not None and after is not None:
        cpu.append(after - before)
    return t, out


def pooled(fn, codes, tests, workers: int) -> list[float]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, codes, tests))


def measure_rounds(completions, tests, codes, workers: int, rounds: int, cpu: dict[str, list[float]]):
    """Paired bare and sandboxed passes over the batch: (bare seconds, sandboxed seconds, scores correct).

    ``cpu["bare"]``/``cpu["sandbox"]`` receive the machine's busy CPU seconds of each pass.

    Each round runs both, bare first in even rounds and sandboxed first in odd ones, so that a
    drift in the machine's speed (seen here: 20% within a minute) hits both sides of a pair alike;
    an odd ``rounds`` is rounded up, so that both orders come equally often.
    """
    reward = get_execution_reward(max_workers=workers, timeout=30)
    # Warm-up, untimed: page cache, capability probes, the pools of cgroup sets and namespaces.
    reward(completions, tests)
    pooled(bare_run, codes, tests, workers)
    bare_s, sandbox_s = [], []
    for i in range(rounds + rounds % 2):
        for side in ("bare", "sandbox") if i % 2 == 0 else ("sandbox", "bare"):
            if side == "bare":
                t, fractions = timed_cpu(lambda: pooled(bare_run, codes, tests, workers), cpu["bare"])
                bare_s.append(t)
            else:
                t, rewards = timed_cpu(lambda: reward(completions, tests), cpu["sandbox"])
                sandbox_s.append(t)
    half = len(codes) // 2
    correct = all(r == 1.0 for r in rewards[:half]) and all(r is not None and r < 1.0 for r in rewards[half:])
    correct &= all(f == 1.0 for f in fractions[:half]) and all(f < 1.0 for f in fractions[half:])
    return bare_s, sandbox_s, correct


def measure_layers(caps, tests, codes, workers: int, rounds: int) -> dict[str, dict]:
    """Sandboxed passes with one layer (or all but the base) switched off; rounds interleave the variants."""
    variants = [
        ("all layers", caps),
        ("without cgroups", caps.without("cgroups")),
        ("a new network namespace per run", caps.without("netns-pool")),
        ("rlimits by the cgroup shell, not the start gate", caps.without("start-gate")),
        # Detected again: with bwrap present capabilities() drops the unshare fallback, so a plain
        # without("bwrap") would measure no namespaces at all.
        ("unshare instead of bwrap", detect(skip=("bwrap",))),
        ("setpriv instead of the compiled uid helper", caps.without("uid-helper")),
        ("without uid switch", caps.without("uid")),
        ("subprocess + rlimits only", caps.without("bwrap", "unshare", "uid", "cgroups")),
    ]
    seconds: dict[str, list[float]] = {label: [] for label, _ in variants}
    for _ in range(rounds):
        for label, narrowed in variants:
            t, _ = timed(lambda c=narrowed: pooled(lambda a, b: sandbox_run(a, b, c), codes, tests, workers))
            seconds[label].append(t)
    return {
        label: {
            "seconds": seconds[label],
            "evals_per_s": len(codes) / statistics.median(seconds[label]),
            "layers": list(narrowed.layers()),
        }
        for label, narrowed in variants
    }


def python_section(args, workers: int) -> dict:
    caps = capabilities()
    completions, tests, codes = make_batch()
    cpu: dict[str, list[float]] = {"bare": [], "sandbox": []}
    bare_s, sandbox_s, correct = measure_rounds(completions, tests, codes, workers, args.rounds, cpu)
    layer_rows = {} if args.no_layers else measure_layers(caps, tests, codes, workers, args.rounds)
    bare, boxed = statistics.median(bare_s), statistics.median(sandbox_s)
    ratios = [s / b for b, s in zip(bare_s, sandbox_s)]
    pairs = [(sum(sandbox_s[i : i + 2]) / sum(bare_s[i : i + 2])) for i in range(0, len(bare_s), 2)]
    evals_per_s, overhead = BATCH / boxed, statistics.median(pairs)  # both orders in every pair of rounds
    section = {
        "batch": BATCH,
        "workers": workers,
        "rounds": len(bare_s),
        "bare_seconds": bare_s,
        "sandbox_seconds": sandbox_s,
        "bare_evals_per_s": BATCH / bare,
        "evals_per_s": evals_per_s,
        "overhead_ratio": overhead,
        "overhead_ratio_per_round": ratios,
        "overhead_ratio_per_round_pair": pairs,
        # The same passes in CPU time, the whole machine's (kernel work of namespace teardown included):
        # steadier than wall time on a noisy VM, but not the floor's measure.
        "cpu_overhead_ratio": (
            statistics.median(
                sum(cpu["sandbox"][i : i + 2]) / sum(cpu["bare"][i : i + 2]) for i in range(0, len(cpu["bare"]), 2)
            ) if cpu["bare"] else None
        ),
        "floor_evals_per_s": FLOOR_EVALS_PER_S,
        "floor_overhead_ratio": FLOOR_OVERHEAD,
        "meets_evals_floor": evals_per_s >= FLOOR_EVALS_PER_S,
        "meets_overhead_floor": overhead <= FLOOR_OVERHEAD,
        "scores_correct": correct,
        "layers": list(caps.layers()),
        "per_layer": layer_rows,
    }
    _print_table(section)
    return section


# The fixed set of the ordering check, best first.
RUST_ORDERED = {
    "idiomatic, documented": """//! Word statistics.
use std::collections::HashMap;

/// Counts the words of `text`, compared in lower case.
pub fn word_counts(text: &str) -> HashMap<String, usize> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .fold(HashMap::new(), |mut counts, word| {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
            counts
        })
}

/// Parses a strictly positive integer.
pub fn parse_positive(text: &str) -> Result<u32, String> {
    let n: u32 = text.trim().parse().map_err(|e| format!("{e}"))?;
    match n {
        0 => Err("zero is not positive".to_string()),
        n => Ok(n),
    }
}
""",
    "compiles, full of unwrap": """pub fn parse_sum(a: &str, b: &str) -> u32 {
    let x: u32 = a.parse().unwrap();
    let y: u32 = b.parse().unwrap();
    let first = a.chars().next().unwrap();
    let last = b.chars().last().expect("b is empty");
    x + y + first.to_digit(10).unwrap() + last.to_digit(10).unwrap()
}
""",
    "does not compile": """/// Doubles and adds the numbers.
pub fn total(xs: &[i32]) -> i32 {
    let sum: i32 = xs.iter().map(|x| x * 2).sum();
    sum + "one"
}
""",
    "not Rust": "I'm sorry, I can't write that. Maybe ask me for a Python version instead?",
}


def rust_batch() -> tuple[list[str], dict[str, list[str]]]:
    """(completions, columns): every Rust task's reference, then a non-compiling copy of each, fenced;
    the ``tests`` and ``solution`` (reference) columns the reward reads."""
    rows = list(load_tasks(language="rust"))
    codes = [r["solution"] for r in rows]
    codes += [f"{r['solution']}\npub fn broken_{i}() -> i32 {{ undefined_value_{i} }}\n" for i, r in enumerate(rows)]
    columns = {"tests": [r["tests"] for r in rows] * 2, "solution": [r["solution"] for r in rows] * 2}
    return [f"Here you go.\n```rust\n{code}```\n" for code in codes], columns


def rust_section(args) -> dict:
    workers = args.workers or default_rust_workers()
    completions, columns = rust_batch()  # the references' test records are cached after the first round
    half = len(completions) // 2
    fresh_s, scores = [], []
    for _ in range(args.rounds):
        reward = get_rust_reward(max_workers=workers)  # a new, empty cache each round
        t, scores = timed(lambda r=reward: r(completions, **columns))
        fresh_s.append(t)
    repeats = 50
    hits_t, _ = timed(lambda: [reward(completions, **columns) for _ in range(repeats)])
    ordered = get_rust_reward()([f"```rust\n{c}```" if "Rust" not in name else c for name, c in RUST_ORDERED.items()])
    fresh_per_s = len(completions) / statistics.median(fresh_s)
    hits_per_s = repeats * len(completions) / hits_t
    section = {
        "batch": len(completions),
        "not_compiling": len(completions) - half,
        "workers": workers,
        "rounds": args.rounds,
        "fresh_seconds": fresh_s,
        "fresh_per_s": fresh_per_s,
        "cache_hits_per_s": hits_per_s,
        "floor_fresh_per_s": FLOOR_RUST_FRESH_PER_S,
        "floor_cache_hits_per_s": FLOOR_RUST_HITS_PER_S,
        "meets_fresh_floor": fresh_per_s >= FLOOR_RUST_FRESH_PER_S,
        "meets_cache_floor": hits_per_s >= FLOOR_RUST_HITS_PER_S,
        "references_beat_broken_copies": all(a > b for a, b in zip(scores[:half], scores[half:])),
        "ordering_scores": dict(zip(RUST_ORDERED, ordered)),
        "ordering_holds": all(a is not None and b is not None and a > b for a, b in itertools.pairwise(ordered)),
    }
    _print_rust_table(section)
    return section


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="paired bare/sandboxed rounds, made even (medians kept)")
    parser.add_argument("--workers", type=int, default=None, help="parallel runs (default: usable cores; twice that for rust)")
    parser.add_argument("--no-layers", action="store_true", help="skip the per-layer breakdown")
    parser.add_argument("--sections", nargs="+", choices=["python", "rust"], default=["python", "rust"])
    args = parser.parse_args()
    workers = args.workers or default_workers()
    # The imports leave ~450,000 objects (torch among them): a full collection of them takes ~275 ms,
    # and where one lands inside a timed pass it skews that side by ~20%. Frozen, they are never scanned.
    gc.collect()
    gc.freeze()
    load_before = os.getloadavg()[0]  # other work on a shared machine skews every number here
    summary: dict = {"benchmark": "rewards_speed"}
    if "python" in args.sections:
        summary["python_execution"] = python_section(args, workers)
    if "rust" in args.sections:
        print()
        summary["rust_reward"] = rust_section(args)
    summary["machine"] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cores": workers,
        "load_average_1m": [load_before, os.getloadavg()[0]],  # before, after
    }
    print(f"\n1-minute load average before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    existing = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps({**existing, **summary}, indent=2) + "\n")  # keeps sections not rerun
    print(f"\nwrote {RESULTS}")


def _print_table(r: dict) -> None:
    print(f"execution reward, batch of {r['batch']} (half reference, half stub), {r['workers']} workers")
    print(f"layers: {', '.join(r['layers'])}\n")
    print(f"{'measure':<34}{'value':>12}{'floor':>10}  ok")
    rows = [
        ("bare subprocess evals/s", r["bare_evals_per_s"], None, None),
        ("sandboxed evals/s", r["evals_per_s"], f">= {FLOOR_EVALS_PER_S:g}", r["meets_evals_floor"]),
        ("isolation overhead (x bare)", r["overhead_ratio"], f"<= {FLOOR_OVERHEAD:g}", r["meets_overhead_floor"]),
        ("  the same in CPU time (x bare)", r["cpu_overhead_ratio"] or float("nan"), None, None),
        ("scores correct (1.0 ref, <1 stub)", float(r["scores_correct"]), None, r["scores_correct"]),
    ]
    for name, value, floor, ok in rows:
        print(f"{name:<34}{value:>12.2f}{floor or '':>10}  {'' if ok is None else ('yes' if ok else 'NO')}")
    if r["per_layer"]:
        print(f"\n{'sandbox layers (median of the rounds)':<48}{'evals/s':>8}")
        for label, row in r["per_layer"].items():
            print(f"{label:<48}{row['evals_per_s']:>8.2f}")


def _print_rust_table(r: dict) -> None:
    print(f"rust reward, {r['batch']} completions ({r['not_compiling']} not compiling), {r['workers']} workers")
    print(f"{'measure':<34}{'value':>12}{'floor':>10}  result")
    for name, value, floor, ok in [
        ("fresh completions/s", r["fresh_per_s"], f">= {FLOOR_RUST_FRESH_PER_S:g}", r["meets_fresh_floor"]),
        ("cache hits/s", r["cache_hits_per_s"], f">= {FLOOR_RUST_HITS_PER_S:g}", r["meets_cache_floor"]),
    ]:
        print(f"{name:<34}{value:>12.1f}{floor:>10}  {'PASS' if ok else 'FAIL'}")
    print(f"{'each reference > its broken copy':<56}  {'PASS' if r['references_beat_broken_copies'] else 'FAIL'}")
    order = " > ".join(f"{name} ({score})" for name, score in r["ordering_scores"].items())
    print(f"ordering: {order}  {'PASS' if r['ordering_holds'] else 'FAIL'}")


if __name__ == "__main__":
    main()
