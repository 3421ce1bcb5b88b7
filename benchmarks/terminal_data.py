"""Benchmark: what the SFT stage's terminal data costs to build, and the two ways each part used to be made.

Measures, on this machine, with bubblewrap (the quickstart's sandbox):
  * the recipe's terminal data (``recipes/tiny/sft.yaml``: its requests and sessions with their real outputs)
    built into a fresh fixture cache, the sandbox runs counted by program;
  * per (fixture, reference command), interleaved: a copy of the whole fixture (``.git`` included) and
    ``Workspace.run`` there, as the rows' outputs were made up to 30177e5, against ``checks.RUNS``'s trial on the
    fixture itself (a copy only for a command that writes); both must show the same output;
  * per fixture, interleaved: ``git init``, ``add`` + ``commit`` per commit, ``repack`` and ``prune-packed`` (seven
    git processes, up to 30177e5) against ``fixtures.materialize`` (``init``, ``fast-import``, ``read-tree``); both
    must give the same commit hashes.

Ratios are of the same run. Prints a table and writes benchmarks/results/terminal_data.json.

    python3 benchmarks/terminal_data.py [--sample 150] [--fixtures 60] [--rounds 3] [--no-full]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

from rusty_hf.agent.workspace import Workspace
from rusty_hf.data.terminal import checks
from rusty_hf.data.sft_data import terminal_dialogs
from rusty_hf.data.terminal.dataset import training_requests
from rusty_hf.data.terminal.fixtures import GIT_ENV, copy_fixture, materialize
from rusty_hf.sandbox import require_isolation

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "terminal_data.json"


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _seven_processes(fixture, dest: Path) -> Path:
    """The fixture built as up to 30177e5: a `git add -A` and `git commit` per commit, then one pack."""
    def git(*args: str, date: str | None = None) -> None:
        env = {**os.environ, **GIT_ENV, **({"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {})}
        subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True, env=env)

    def write(files: dict[str, str]) -> None:
        for name, content in files.items():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_text(content, encoding="utf-8")

    dest.mkdir(parents=True)
    git("-c", "init.defaultBranch=main", "init", "-q", "--template=")
    for day, (message, changes) in enumerate(fixture.commits, start=1):
        write(changes)
        git("add", "-A")
        git("commit", "-q", "-m", message, date=f"2026-01-{day:02d}T10:00:00+00:00")
    git("repack", "-a", "-d", "-q")
    git("prune-packed", "-q")
    write(fixture.dirty)
    return dest


def _head(root: Path) -> str:
    env = {**os.environ, **GIT_ENV}
    out = subprocess.run(["git", "-C", str(root), "log", "--format=%H"], capture_output=True, text=True, env=env,
                         check=True).stdout  # fmt: skip
    if not out.strip():
        raise SystemExit(f"{root}: no commit; the builders failed")
    return out


def _copied_run(root: Path, command: str) -> str:
    """A command's output as the rows got it up to 30177e5: the whole fixture copied into a scratch folder (on
    /dev/shm where there is room), `Workspace.run` there, then the copy read back."""
    with checks._scratch() as tmp:
        ws = Workspace(copy_fixture(root, Path(tmp) / "w"), timeout=checks.COMMAND_TIMEOUT_S)
        output = ws.run(command).output
        ws.tree()
        return output


def _same_output(a: str, b: str) -> bool:
    """Equal but for digits (`unittest` prints its time, `ls -l` the run's uid)."""
    strip = str.maketrans("", "", "0123456789")
    return a.translate(strip) == b.translate(strip)


def compare_runs(sample: int, rounds: int, cache: Path) -> dict:
    """Interleaved per-run time of both paths over ``sample`` (fixture, reference command) pairs."""
    pairs, seen = [], set()
    for request in training_requests(sample * 4, seed=1, multi_turn_share=1.0):
        command = next((a["command"] for a in request.case.actions if a.get("action") == "CMD"), None)
        if command and (request.fixture.key, command) not in seen:
            seen.add((request.fixture.key, command))
            pairs.append((materialize(request.fixture, cache), command))
        if len(pairs) == sample:
            break
    times = {"copy + run": [], "trial": []}
    cpu = {"copy + run": 0.0, "trial": 0.0}
    differ = 0
    for r in range(rounds):
        for i, (root, command) in enumerate(pairs):
            order = ("copy + run", "trial") if (i + r) % 2 == 0 else ("trial", "copy + run")
            outputs = {}
            for how in order:
                c, t = _cpu(), time.perf_counter()
                if how == "trial":
                    outputs[how] = checks._Runs().run(root, command, checks.COMMAND_TIMEOUT_S)[1]  # a fresh memo
                else:
                    outputs[how] = _copied_run(root, command)
                times[how].append(time.perf_counter() - t)
                cpu[how] += _cpu() - c
            differ += not _same_output(outputs["copy + run"], outputs["trial"])
    n = len(pairs) * rounds
    return {"pairs": len(pairs), "rounds": rounds, "outputs_that_differ": differ,
            **{how: {"median_ms": round(1000 * statistics.median(v), 2), "cpu_ms": round(1000 * cpu[how] / n, 2)}
               for how, v in times.items()}}  # fmt: skip


def compare_builds(count: int, rounds: int) -> dict:
    """Interleaved per-fixture build time of both builders over ``count`` training fixtures."""
    fixtures = list({r.fixture.key: r.fixture for r in training_requests(count * 3, seed=2)}.values())[:count]
    times = {"seven git processes": [], "materialize": []}
    cpu = {"seven git processes": 0.0, "materialize": 0.0}
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for i, fixture in enumerate(fixtures):
                heads = {}
                order = list(times) if (i + r) % 2 == 0 else list(reversed(times))
                for how in order:
                    where = Path(tmp) / f"{how[0]}{r}-{i}"
                    c, t = _cpu(), time.perf_counter()
                    root = _seven_processes(fixture, where) if how == "seven git processes" else materialize(fixture, where)
                    times[how].append(time.perf_counter() - t)
                    cpu[how] += _cpu() - c
                    heads[how] = _head(root)
                differ += len(set(heads.values())) != 1
    n = len(fixtures) * rounds
    return {"fixtures": len(fixtures), "rounds": rounds, "hashes_that_differ": differ,
            **{how: {"median_ms": round(1000 * statistics.median(v), 2), "cpu_ms": round(1000 * cpu[how] / n, 2)}
               for how, v in times.items()}}  # fmt: skip


def full_build(config: dict) -> dict:
    """The recipe's terminal data (`sft_data.terminal_dialogs`) into a fresh cache, its sandbox runs counted by
    program."""
    counts: collections.Counter = collections.Counter()
    lock = threading.Lock()
    original = checks._Runs._run

    def counted(self, key, root, command, timeout):
        with lock:
            counts[command.split()[0] if command.split() else "?"] += 1
        return original(self, key, root, command, timeout)

    checks._Runs._run = counted
    try:
        with tempfile.TemporaryDirectory() as cache:
            start = time.perf_counter()
            rows = terminal_dialogs(
                config["num_terminal"], 0, config["terminal_multi_turn_share"], cache,
                closing_share=config["terminal_closing_share"], session_share=config["terminal_session_share"],
                closing_states_output=config["terminal_closing_states_output"],
                session_write_share=config["terminal_session_write_share"],
                session_refer_share=config.get("terminal_session_refer_share", 0.0),
                session_missing_share=config.get("terminal_session_missing_share", 0.0),
            )  # fmt: skip
            seconds = time.perf_counter() - start
            fixtures = sum(1 for p in Path(cache).iterdir() if (p / ".git").is_dir())
    finally:
        checks._Runs._run = original
    return {"requests": config["num_terminal"], "rows": len(rows), "fixtures": fixtures,
            "workers": min(8, 2 * (os.cpu_count() or 1)), "total_s": round(seconds, 1),
            "sandbox_runs": sum(counts.values()), "runs_by_program": dict(counts.most_common())}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=150, help="(fixture, command) pairs for the run comparison")
    parser.add_argument("--fixtures", type=int, default=60, help="fixtures for the build comparison")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-full", dest="full", action="store_false", help="skip building the recipe's data")
    args = parser.parse_args()
    require_isolation()
    config = yaml.safe_load((ROOT / "recipes/tiny/sft.yaml").read_text())
    with tempfile.TemporaryDirectory() as cache:
        result = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
                  "command": "python3 benchmarks/terminal_data.py " + " ".join(sys.argv[1:]),
                  "runs": compare_runs(args.sample, args.rounds, Path(cache)),
                  "builds": compare_builds(args.fixtures, args.rounds)}  # fmt: skip
    if args.full:
        result["recipe_data"] = full_build(config)
    runs, builds = result["runs"], result["builds"]
    print("| part | before (up to 30177e5) | now | before / now |")
    print("|---|---:|---:|---:|")
    for name, block, old, new in (("a reference command's run (median ms)", runs, "copy + run", "trial"),
                                  ("a fixture's build (median ms)", builds, "seven git processes", "materialize")):  # fmt: skip
        for unit in ("median_ms", "cpu_ms"):
            label = name if unit == "median_ms" else name.replace("median ms", "CPU ms")
            print(f"| {label} | {block[old][unit]} | {block[new][unit]} | {block[old][unit] / block[new][unit]:.2f}x |")
    print(f"outputs that differ (but for digits): {runs['outputs_that_differ']} of {runs['pairs'] * runs['rounds']}; "
          f"commit hashes that differ: {builds['hashes_that_differ']} of {builds['fixtures'] * builds['rounds']}")
    if args.full:
        data = result["recipe_data"]
        print(f"recipe data: {data['rows']} rows, {data['fixtures']} fixtures, {data['sandbox_runs']} sandbox runs, "
              f"{data['total_s']} s on {data['workers']} threads")
    OUT.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
