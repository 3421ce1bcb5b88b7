"""Finding and killing a run's processes: by cgroup, or by uid where there is no cgroup.

A daemon that calls ``setsid`` leaves the run's process group and would survive ``killpg``.
:func:`sweep` kills what a run's cgroups list (``cgroups.py``; v1 has no ``cgroup.kill``). Without
bwrap/unshare and without a writable cgroup, a run that has a uid of its own (root hosts, see
``identity.py``) is found by that uid instead: every process with it belongs to the run.

    kill_uid(1_900_000_123)
    survivors = sweep(["/sys/fs/cgroup/pids/rusty-sandbox-pool-..."], wait_s=1.0)
"""

from __future__ import annotations

import itertools
import os
import signal
import time


def pids_of_uid(uid: int) -> list[int]:
    """Pids whose /proc entry is owned by ``uid`` (the process's effective uid)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat(follow_symlinks=False).st_uid == uid:
                    found.append(int(entry.name))
            except OSError:
                pass  # exited while we looked
    return found


def kill_uid(uid: int, rounds: int = 50) -> bool:
    """SIGKILL every process of ``uid`` until none is left; False if some survived ``rounds`` sweeps."""
    for _ in range(rounds):
        pids = pids_of_uid(uid)
        if not pids:
            return True
        for pid in pids:
            try:
                fd = os.pidfd_open(pid)  # pins the process: a recycled pid is never signalled
            except OSError:
                continue
            try:
                if os.stat(f"/proc/{pid}").st_uid == uid:
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(fd)
        time.sleep(0.002)
    return not pids_of_uid(uid)


def procs_in(dirs: list[str]) -> set[int]:
    """Pids listed in the ``cgroup.procs`` of each of ``dirs`` (missing dirs count as empty)."""
    pids: set[int] = set()
    for d in dirs:
        try:
            with open(os.path.join(d, "cgroup.procs")) as f:
                pids.update(int(p) for p in f.read().split())
        except (OSError, ValueError):
            pass
    return pids


def _belongs(pid: int, names: set[str]) -> bool:
    """Whether ``pid`` (already pinned by a pidfd) is still in a cgroup named one of ``names``."""
    try:
        with open(f"/proc/{pid}/cgroup") as f:
            return any(os.path.basename(line.rstrip("\n")) in names for line in f)
    except OSError:
        return False


def sweep(dirs: list[str], wait_s: float) -> set[int]:
    """SIGKILL the processes of ``dirs`` until none is left or ``wait_s`` passes; returns survivors."""
    names = {os.path.basename(d) for d in dirs}
    signalled: set[int] = set()
    deadline = time.monotonic() + wait_s
    for rounds in itertools.count():
        # Never this process: a thread of it that failed to leave a run's cgroup lists it there.
        if not (pids := procs_in(dirs) - {os.getpid()}):
            return pids
        if rounds % 20 == 19:
            signalled.clear()  # in case a signalled pid exited and was recycled inside the run
        for pid in pids - signalled:
            signalled.add(pid)
            try:
                fd = os.pidfd_open(pid)  # pins the process: a recycled pid is never signalled
            except OSError:
                continue
            try:
                if _belongs(pid, names):
                    signal.pidfd_send_signal(fd, signal.SIGKILL)
            except OSError:
                pass
            finally:
                os.close(fd)
        if time.monotonic() > deadline:
            return pids
        time.sleep(0.0005)
    raise AssertionError("unreachable")
