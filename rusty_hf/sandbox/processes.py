"""Finding and killing a run's processes by uid, for hosts with neither a pid namespace nor cgroups.

Without bwrap/unshare and without a writable cgroup, a daemon that calls ``setsid`` leaves the run's
process group and would survive ``killpg``. When the run has a uid of its own (root hosts, see
``identity.py``), every process with that uid belongs to it, so scanning ``/proc`` finds them all.

    kill_uid(1_900_000_123)
"""

from __future__ import annotations

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
