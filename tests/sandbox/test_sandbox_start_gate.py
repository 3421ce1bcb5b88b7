"""The gated start: rlimits set by the parent while bwrap holds the run, cgroups joined by the spawning
thread; it fails closed, and the thread always goes back to its own cgroups."""

from __future__ import annotations

import glob
import os
import threading
import time

import pytest

from rusty_hf.sandbox import SandboxError, capabilities, run
from rusty_hf.sandbox import runner as sandbox_runner
from rusty_hf.sandbox import start_gate
from rusty_hf.sandbox.start_gate import StartGate


@pytest.fixture
def gated():
    caps = capabilities()
    if not caps.gated_start:
        pytest.skip("runs start through the cgroup-joining shell here (needs root, bwrap and v1 cgroups)")
    return caps


def _thread_cgroups() -> str:
    with open("/proc/thread-self/cgroup") as f:
        return f.read()


def _in_run_cgroups(comm: str) -> set[str]:
    """Controllers whose pool sets hold a process named ``comm`` right now."""
    found = set()
    for path in glob.glob("/sys/fs/cgroup/*/**/rusty-sandbox-pool-*/cgroup.procs", recursive=True):
        for pid in open(path).read().split():
            try:
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().strip() == comm:
                        found.add(path.split("/")[4])
            except OSError:
                pass
    return found


def test_the_run_is_born_in_its_cgroups_and_the_thread_goes_home(gated):
    home = _thread_cgroups()
    done = threading.Event()
    seen: set[str] = set()

    def watch():
        deadline = time.monotonic() + 5
        while not done.is_set() and time.monotonic() < deadline:
            seen.update(_in_run_cgroups("sleep"))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        result = run(["/bin/sleep", "0.5"], caps=gated)
    finally:
        done.set()
        watcher.join()
    assert result.ok, result.stderr
    expected = {"pids"} if gated.cgroups.pids_parent else set()
    expected |= {"memory"} if gated.cgroups.memory_parent else set()
    assert seen == expected
    assert _thread_cgroups() == home


def test_the_thread_goes_home_when_the_spawn_fails(gated, monkeypatch):
    home = _thread_cgroups()

    def refuse(*args, **kwargs):
        assert _thread_cgroups() != home  # the spawn happens inside the run's cgroups
        raise OSError("no spawn today")

    monkeypatch.setattr(sandbox_runner.subprocess, "Popen", refuse)
    with pytest.raises(SandboxError, match="no spawn today"):
        run(["/bin/true"], caps=gated)
    assert _thread_cgroups() == home


def test_a_gate_never_released_never_starts_the_run(gated, monkeypatch):
    # As if the parent died at the gate: its end of the block pipe closes without the byte.
    def vanish(self, deadline):
        os.close(self._block_w)
        self._block_w = os.open("/dev/null", os.O_WRONLY)  # so that close() stays harmless
        return None

    monkeypatch.setattr(StartGate, "release", vanish)
    begun = time.monotonic()
    result = run(["/bin/sh", "-c", "echo STARTED"], caps=gated, timeout=1.0)
    assert result.timed_out and "STARTED" not in result.stdout
    assert time.monotonic() - begun < 3.0
    assert _in_run_cgroups("bwrap") == set()  # the held sandbox went with the rest of the run


def test_a_limit_that_cannot_be_set_stops_the_run(gated, monkeypatch):
    home = _thread_cgroups()

    def refuse(pid, which, value):
        raise PermissionError("prlimit refused")

    monkeypatch.setattr(start_gate.resource, "prlimit", refuse)
    with pytest.raises(SandboxError, match="rlimits: prlimit refused"):
        run(["/bin/sh", "-c", "echo STARTED"], caps=gated)
    assert _thread_cgroups() == home
    assert _in_run_cgroups("bwrap") == set()
