"""Benchmark: what each sandbox layer costs per run, against a bare subprocess.

Measures, interleaved round-robin so that load from other jobs on the machine hits every
configuration alike:
  * latency of ``python -I -c pass`` as a bare subprocess vs ``run_python("pass")`` under each
    layer combination this host supports;
  * CPU time per run (this process plus all reaped descendants), which load from other jobs
    disturbs far less than wall time;
  * latency of a small test file (three asserts against a solution module), bare vs sandboxed;
  * throughput of a batch of 64 such runs on a 2-thread pool, bare vs with every layer.

Prints a table and writes benchmarks/results/sandbox_overhead.json.

    python3 benchmarks/sandbox_overhead.py [--rounds 15] [--batch 64] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rusty_hf.sandbox import capabilities, run_python
from rusty_hf.sandbox.capabilities import detect
from rusty_hf.sandbox.cgroup_discovery import _own_dirs
from rusty_hf.sandbox.cgroup_pool import _pools
from rusty_hf.sandbox.cgroups import RunCgroups

SOLUTION = "def add(a, b):\n    return a + b\n"
TESTS = (
    "from solution import add\n"
    "assert add(1, 2) == 3\n"
    "assert add(-1, 1) == 0\n"
    "assert add('a', 'b') == 'ab'\n"
    "print('3 passed')\n"
)
RESULTS = Path(__file__).resolve().parent / "results" / "sandbox_overhead.json"
METER: CgroupCpuMeter  # made in main(), once capabilities are known


def bare_python(code: str, files: dict[str, str]) -> None:
    """The reference: the same program in a temp dir, as a plain subprocess with a timeout."""
    with tempfile.TemporaryDirectory() as d:
        for name, content in files.items():
            Path(d, name).write_text(content)
        Path(d, "main.py").write_text(code)
        subprocess.run([sys.executable, "-E", "-s", "main.py"], cwd=d, capture_output=True, timeout=10, check=True)


def configurations() -> dict[str, tuple[object, bool]]:
    """Layer combinations to time: name -> (SandboxCapabilities or None for bare, site_packages)."""
    full = capabilities()
    configs: dict[str, tuple[object, bool]] = {"bare subprocess": (None, True), "all layers": (full, True)}
    if full.cgroups.pids_parent or full.cgroups.memory_parent:
        configs["all but cgroups"] = (full.without("cgroups"), True)
    if full.switches_uid:
        configs["all but uid switch"] = (full.without("uid"), True)
    if full.bwrap:
        configs["no bwrap (detected)"] = (detect(skip=("bwrap",)), True)
    configs["plain: rlimits only"] = (detect(skip=("bwrap", "unshare", "uid", "cgroups")), True)
    configs["all layers, site_packages=False"] = (full, False)
    return configs


class CgroupCpuMeter:
    """CPU seconds of each sandboxed run (every process of it, wrappers included), from a cgroup.

    bwrap's monitor does not reap its namespace's init, so RUSAGE_CHILDREN misses the sandboxed
    processes. Where a v1 cpuacct hierarchy is writable, the run also joins a benchmark cgroup there
    (moving the current thread, as the sandbox does on v1: no grace-period wait) and ``cpuacct.usage``
    is read around each sequential run; on a pure-v2 host the run's own cgroup has ``cpu.stat``.
    """

    def __init__(self) -> None:
        (parent,) = _own_dirs("cpuacct")
        self.dir = os.path.join(parent, f"rusty-bench-cpu-{os.getpid()}") if parent else None
        try:
            os.mkdir(self.dir)
            join = RunCgroups.join_script
            RunCgroups.join_script = lambda run_cg: f"echo 0 > {self.dir}/tasks; " + join(run_cg)
        except (OSError, TypeError):
            self.dir = None

    def usage_s(self) -> float:
        """Cumulative CPU seconds of all sandboxed runs so far (NaN where unmeasurable)."""
        if self.dir is not None:
            return int(Path(self.dir, "cpuacct.usage").read_text()) / 1e9
        total = 0.0
        for pool in list(_pools.values()):
            for run_cg in pool.idle():
                path = run_cg.dirs.get("kill")
                if path is None:
                    return float("nan")
                total += int(Path(path, "cpu.stat").read_text().split()[1]) / 1e6
        return total if _pools else float("nan")

    def close(self) -> None:
        if self.dir is not None:
            os.rmdir(self.dir)


def cpu_seconds(children: bool) -> float:
    """CPU time of this process, plus its reaped descendants when ``children`` (bare subprocesses)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + (kids.ru_utime + kids.ru_stime if children else 0.0)


def time_once(
    caps: object, code: str, files: dict[str, str], bare_argv: list[str] | None, site: bool = True
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run; CPU is NaN for a sandboxed run without cgroups."""
    meter_before = METER.usage_s() if caps is not None else 0.0
    cpu, start = cpu_seconds(caps is None), time.perf_counter()
    if caps is None:
        if bare_argv:
            subprocess.run(bare_argv, capture_output=True, timeout=10, check=True)
        else:
            bare_python(code, files)
    else:
        result = run_python(code, files=files, caps=caps, site_packages=site)  # type: ignore[arg-type]
        if not result.ok:
            raise RuntimeError(f"sandboxed benchmark run failed: {result.stderr[-500:]}")
    wall, cpu = time.perf_counter() - start, cpu_seconds(caps is None) - cpu
    if caps is not None:  # the run's cgroup holds every process of it; reaped ones would count twice
        cpu += METER.usage_s() - meter_before if getattr(caps, "cgroups", None) and caps.cgroups.pids_parent else float("nan")
    return wall, cpu


def _round_or_none(x: float, digits: int = 1) -> float | None:
    return None if math.isnan(x) else round(x, digits)


def latency_table(
    configs: dict[str, tuple[object, bool]], code: str, files: dict[str, str], rounds: int, bare_argv
) -> dict:
    wall: dict[str, list[float]] = {name: [] for name in configs}
    cpu: dict[str, list[float]] = {name: [] for name in configs}
    for caps, site in configs.values():  # warm-up: page cache, first-use detection
        time_once(caps, code, files, bare_argv, site)
    for _ in range(rounds):
        for name, (caps, site) in configs.items():
            w, c = time_once(caps, code, files, bare_argv, site)
            wall[name].append(w)
            cpu[name].append(c)
    base_wall, base_cpu = statistics.median(wall["bare subprocess"]), statistics.median(cpu["bare subprocess"])
    return {
        name: {
            "median_ms": round(statistics.median(wall[name]) * 1e3, 1),
            "min_ms": round(min(wall[name]) * 1e3, 1),
            "ratio_to_bare": round(statistics.median(wall[name]) / base_wall, 2),
            "cpu_ms": _round_or_none(statistics.median(cpu[name]) * 1e3),
            "cpu_ratio_to_bare": _round_or_none(statistics.median(cpu[name]) / base_cpu, 2),
        }
        for name in configs
    }


def throughput(caps: object, batch: int, workers: int) -> float:
    files = {"solution.py": SOLUTION}
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda _: time_once(caps, TESTS, files, None), range(batch)))
    return batch / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    global METER
    caps = capabilities()
    print(caps.describe(), "\n")
    METER = CgroupCpuMeter()
    configs = configurations()
    pass_argv = [sys.executable, "-I", "-c", "pass"]
    report = {
        "host": {"python": sys.version.split()[0], "kernel": platform.release(), "cpus": os.cpu_count()},
        "layers": list(caps.layers()),
        "notes": list(caps.notes),
        "latency_pass": latency_table(configs, "pass", {}, args.rounds, pass_argv),
        "latency_small_test": latency_table(configs, TESTS, {"solution.py": SOLUTION}, args.rounds, None),
    }
    bare_tp, full_tp = throughput(None, args.batch, args.workers), throughput(caps, args.batch, args.workers)
    report["throughput"] = {
        "batch": args.batch,
        "workers": args.workers,
        "bare_runs_per_s": round(bare_tp, 2),
        "sandboxed_runs_per_s": round(full_tp, 2),
        "overhead_ratio": round(bare_tp / full_tp, 2),
    }
    for key, title in (("latency_pass", "python -I -c pass"), ("latency_small_test", "small test file")):
        print(f"{title:<36} {'median ms':>10} {'min ms':>8} {'x bare':>7} {'cpu ms':>8} {'x bare':>7}")
        for name, r in report[key].items():
            cpu, cpu_ratio = (str(r[k]) if r[k] is not None else "n/a" for k in ("cpu_ms", "cpu_ratio_to_bare"))
            print(f"  {name:<34} {r['median_ms']:>10} {r['min_ms']:>8} {r['ratio_to_bare']:>7} {cpu:>8} {cpu_ratio:>7}")
        print()
    tp = report["throughput"]
    print(f"batch of {tp['batch']} small tests on {tp['workers']} threads: bare {tp['bare_runs_per_s']}/s, "
          f"sandboxed {tp['sandboxed_runs_per_s']}/s (overhead x{tp['overhead_ratio']})")  # fmt: skip
    METER.close()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
