"""The gated start: rlimits set by the parent while bwrap holds the run, cgroups joined by the spawning
thread (never the main one); it fails closed, and the thread always goes back to its own cgroups.

The rewards spawn from pool threads; so do these tests (``_off_main``): from the main thread a run
takes the cgroup shell instead (its memory would be charged to the run while it sat there).
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from attack_harness import OVERRUN_S, require_mechanism

from rusty_hf.sandbox import SandboxError, run
from rusty_hf.sandbox import launch as sandbox_launch
from rusty_hf.sandbox import start_gate
from rusty_hf.sandbox.cgroup_pool import CgroupPool
from rusty_hf.sandbox.cgroups import RunCgroups
from rusty_hf.sandbox.start_gate import StartGate


@pytest.fixture
def gated():
    return require_mechanism("gated_start", "the start gate")


def _off_main(fn, *args):
    """Call ``fn`` in a worker thread, as the rewards do; its exceptions come back here."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(fn, *args).result()


def _thread_cgroups() -> str:
    with open("/proc/thread-self/cgroup") as f:
        return f.read()


@pytest.fixture
def borrowed(monkeypatch) -> list[RunCgroups]:
    """The cgroup sets this test's runs borrow, in order: only they are inspected, never another
    process's pool (other sandbox runs on the same host would otherwise show up as this run's)."""
    sets: list[RunCgroups] = []
    real_borrow = CgroupPool.borrow

    def borrow(self, limits):
        run_cg = real_borrow(self, limits)
        if run_cg is not None:
            sets.append(run_cg)
        return run_cg

    monkeypatch.setattr(CgroupPool, "borrow", borrow)
    return sets


def _in_run_cgroups(sets: list[RunCgroups], comm: str) -> set[str]:
    """Which of the borrowed ``sets``' pids and memory cgroups hold a process named ``comm`` now."""
    found = set()
    for run_cg in list(sets):
        for purpose, path in run_cg.dirs.items():
            if purpose not in ("pids", "memory"):  # on cgroup v2 "kill" is the same dir again
                continue
            try:
                with open(os.path.join(path, "cgroup.procs")) as f:
                    pids = f.read().split()
            except OSError:  # the set was removed: nothing in it
                continue
            for pid in pids:
                try:
                    with open(f"/proc/{pid}/comm") as f:
                        if f.read().strip() == comm:
                            found.add(purpose)
                except OSError:
                    pass
    return found


def test_the_run_is_born_in_its_cgroups_and_the_thread_goes_home(gated, borrowed):
    done = threading.Event()
    seen: set[str] = set()

    def watch():
        deadline = time.monotonic() + 5
        while not done.is_set() and time.monotonic() < deadline:
            seen.update(_in_run_cgroups(borrowed, "sleep"))
            time.sleep(0.02)

    def spawn():
        home = _thread_cgroups()
        result = run(["/bin/sleep", "0.5"], caps=gated)
        return result, home, _thread_cgroups()

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result, home, after = _off_main(spawn)
    finally:
        done.set()
        watcher.join()
    assert result.ok, result.stderr
    expected = {"pids"} if gated.cgroups.pids_parent else set()
    expected |= {"memory"} if gated.cgroups.memory_parent else set()
    assert seen == expected
    assert after == home


def test_the_thread_goes_home_when_the_spawn_fails(gated, monkeypatch):
    inside = []

    def refuse(*args, **kwargs):
        inside.append(_thread_cgroups())
        raise OSError("no spawn today")

    def spawn():
        home = _thread_cgroups()
        with pytest.raises(SandboxError, match="no spawn today"):
            run(["/bin/true"], caps=gated)
        return home, _thread_cgroups()

    monkeypatch.setattr(sandbox_launch.subprocess, "Popen", refuse)
    home, after = _off_main(spawn)
    assert inside and inside[0] != home  # the spawn happened inside the run's cgroups
    assert after == home


def test_the_main_thread_never_joins_a_run_cgroup(gated, monkeypatch):
    assert threading.get_native_id() == os.getpid()  # pytest runs tests in the main thread
    gates = []
    monkeypatch.setattr(sandbox_launch, "StartGate", lambda *a, **k: gates.append(1) or StartGate(*a, **k))
    home = _thread_cgroups()
    result = run(["/bin/sh", "-c", "grep -E 'Max (processes|open files)' /proc/self/limits"], caps=gated)
    assert result.ok and "256" in result.stdout, result.stderr  # the shell set the rlimits instead
    assert gates == [] and _thread_cgroups() == home
    assert _off_main(run, ["/bin/true"]).ok and gates == [1]


def test_a_gate_never_released_never_starts_the_run(gated, borrowed, monkeypatch):
    # As if the parent died at the gate: its end of the block pipe closes without the byte.
    def vanish(self, deadline):
        os.close(self._block_w)
        self._block_w = os.open("/dev/null", os.O_WRONLY)  # so that close() stays harmless

    monkeypatch.setattr(StartGate, "release", vanish)
    begun = time.monotonic()
    result = _off_main(lambda: run(["/bin/sh", "-c", "echo STARTED"], caps=gated, timeout=1.0))
    assert result.timed_out and "STARTED" not in result.stdout
    assert time.monotonic() - begun < 1.0 + OVERRUN_S  # ended at its deadline, not held forever at the gate
    assert borrowed and _in_run_cgroups(borrowed, "bwrap") == set()  # the held sandbox went with the rest of the run


def test_a_limit_that_cannot_be_set_stops_the_run(gated, borrowed, monkeypatch):
    def refuse(pid, which, value):
        raise PermissionError("prlimit refused")

    def spawn():
        home = _thread_cgroups()
        with pytest.raises(SandboxError, match="rlimits: prlimit refused"):
            run(["/bin/sh", "-c", "echo STARTED"], caps=gated)
        return home, _thread_cgroups()

    monkeypatch.setattr(start_gate.resource, "prlimit", refuse)
    home, after = _off_main(spawn)
    assert after == home
    assert borrowed and _in_run_cgroups(borrowed, "bwrap") == set()
