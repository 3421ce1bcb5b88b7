"""A pool of reusable per-run cgroup sets, one pool per place cgroups are made, shared by threads.

A run borrows a :class:`~rusty_hf.sandbox.cgroups.RunCgroups` set (created on first need, so a pool
grows to the peak number of concurrent runs), gets its limits written where they changed, and
gives it back at the end: everything in it is killed, and it returns to the pool only once it is
verified empty (no process, no pid charge, no child cgroup, memory reclaimed); otherwise it is
removed. Pools are removed at interpreter exit; sets left by a process that crashed are found by
their name (``rusty-sandbox-pool-<pid>-<start time>-<n>``: owner gone, or its pid now someone
else's) and removed when the next process makes its pool. A forked child starts pools of its own.

    pool = pool_for(capabilities().cgroups)
    run_cg = pool.borrow(Limits())          # None where no cgroup can be made
    ...
    pool.give_back(run_cg)

`confine_process` (a test run's safety net: this process in a pids-capped cgroup) lives here too:
releasing it closes the pools nested inside it first.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable

from rusty_hf.sandbox.cgroup_discovery import CgroupSupport, _own_dirs, write_value
from rusty_hf.sandbox.cgroups import RunCgroups, rmdir_wait
from rusty_hf.sandbox.processes import sweep
from rusty_hf.sandbox.limits import Limits

logger = logging.getLogger(__name__)

# Sandbox cgroups by owner: pool sets carry the owner's start time (pids get recycled); per-run
# sets of older versions, capability probes and test safety nets carry the pid alone.
_POOL_NAME = re.compile(r"rusty-sandbox-pool-(\d+)-(\d+)(?:-\d+)+")  # pid, start time, [pool,] set
_PID_NAME = re.compile(r"rusty-sandbox-(?:probe-|confine-)?(\d+)(?:-\d+)?")


def start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot, field 22 of /proc/<pid>/stat), None if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def is_stale(name: str) -> bool:
    """Whether a sandbox cgroup's owner is gone (an unrecognised name is never stale)."""
    if match := _POOL_NAME.fullmatch(name):
        return start_time(int(match[1])) != int(match[2])
    if match := _PID_NAME.fullmatch(name):
        return start_time(int(match[1])) is None
    return False


def remove_tree(path: str) -> bool:
    """Kill every process in a cgroup and its descendants, then remove them, deepest first."""
    try:
        children = [e.path for e in os.scandir(path) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return not os.path.exists(path)
    done = all([remove_tree(child) for child in children])  # noqa: C419 (try every child)
    try:
        write_value(os.path.join(path, "cgroup.kill"), "1")  # cgroup2
    except OSError:
        pass
    sweep([path], wait_s=1.0)
    return rmdir_wait(path) and done


def clean_stale(parents: set[str]) -> list[str]:
    """Remove the sandbox cgroups of dead owners under ``parents``; returns the paths removed."""
    removed = []
    for parent in parents:
        try:
            names = [e.name for e in os.scandir(parent) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for name in names:
            if name.startswith("rusty-sandbox-") and is_stale(name) and remove_tree(os.path.join(parent, name)):
                removed.append(os.path.join(parent, name))
    if removed:
        logger.info("sandbox: removed %d cgroups left by processes that are gone: %s", len(removed), removed)
    return removed


_pool_serials = itertools.count()


class CgroupPool:
    """Reusable cgroup sets under one :class:`CgroupSupport`; ``borrow``/``give_back`` are thread-safe."""

    def __init__(self, support: CgroupSupport) -> None:
        self.support = support
        self.pid = os.getpid()
        # One process may hold several pools (its cgroups can change, e.g. a test confines itself), so
        # the pool's serial keeps their sets' names apart under a parent they share.
        self.prefix = f"rusty-sandbox-pool-{self.pid}-{start_time(self.pid)}-{next(_pool_serials)}-"
        self._lock = threading.Lock()
        self._idle: list[RunCgroups] = []
        self._sets: list[RunCgroups] = []  # idle and borrowed
        # Discarded sets whose dirs would not go yet: killed processes stay charged until they are
        # reaped, which an orphan's host init may take seconds to do on a loaded machine. Retried later.
        self._unremoved: list[RunCgroups] = []
        self._numbers = itertools.count()

    @property
    def parents(self) -> set[str]:
        s = self.support
        return {p for p in (s.pids_parent, s.memory_parent, s.kill_parent) if p}

    def borrow(self, limits: Limits) -> RunCgroups | None:
        """A set configured for ``limits`` with fresh event baselines; None if none can be made."""
        if self._unremoved:
            self.retry_removals()
        with self._lock:
            run_cg = self._idle.pop() if self._idle else None
        if run_cg is not None and not (run_cg.intact() and run_cg.configure(limits)):
            self._discard(run_cg)
            run_cg = None
        if run_cg is None:
            run_cg = RunCgroups(self.support, f"{self.prefix}{next(self._numbers)}")
            with self._lock:
                self._sets.append(run_cg)
            run_cg.configure(limits)  # a failed cap is logged, and the set is not reused
        if not run_cg.dirs:
            self._discard(run_cg)
            return None
        run_cg.begin()
        return run_cg

    def give_back(self, run_cg: RunCgroups) -> None:
        """Kill what the run left; keep the set only if it is verified empty, else remove it."""
        run_cg.kill()
        if not run_cg.degraded and os.getpid() == self.pid and run_cg.settle():
            with self._lock:
                self._idle.append(run_cg)
        else:
            self._discard(run_cg)

    def _discard(self, run_cg: RunCgroups) -> None:
        removed = run_cg.remove()
        with self._lock:
            if run_cg in self._sets:
                self._sets.remove(run_cg)
            if not removed:
                self._unremoved.append(run_cg)

    def retry_removals(self, wait_s: float = 0.0) -> bool:
        """Remove discarded sets that could not be removed before (retrying up to ``wait_s``); True when none is left."""
        deadline = time.monotonic() + wait_s
        while True:
            with self._lock:
                pending, self._unremoved = self._unremoved, []
            still = [run_cg for run_cg in pending if not run_cg.remove(wait_s=0.0)]
            with self._lock:
                self._unremoved.extend(still)
            if not still or time.monotonic() >= deadline:
                return not still
            time.sleep(0.05)

    def idle(self) -> list[RunCgroups]:
        with self._lock:
            return list(self._idle)

    def close(self) -> None:
        """Remove every set, borrowed ones included (their processes are killed)."""
        with self._lock:
            sets, self._sets, self._idle = self._sets + self._unremoved, [], []
            self._unremoved = []
        for run_cg in sets:
            run_cg.remove()


_registry_lock = threading.Lock()
_pools: dict[CgroupSupport, CgroupPool] = {}


def pool_for(support: CgroupSupport) -> CgroupPool:
    """This process's pool for ``support``, made on first use (after removing stale sets there)."""
    with _registry_lock:
        pool = _pools.get(support)
        if pool is None or pool.pid != os.getpid():
            pool = _pools[support] = CgroupPool(support)
            clean_stale(pool.parents)
    return pool


def close_pools(under: str | None = None) -> None:
    """Remove the pools (all, or those making cgroups below the dir ``under``); runs at exit."""
    with _registry_lock:
        chosen = [
            (key, pool)
            for key, pool in _pools.items()
            if under is None or any(p == under or p.startswith(under.rstrip("/") + "/") for p in pool.parents)
        ]
        for key, _ in chosen:
            del _pools[key]
    for _, pool in chosen:
        if pool.pid == os.getpid():
            pool.close()


def _forget_parent_pools() -> None:
    """In a forked child: the parent's sets are the parent's to use and remove."""
    global _registry_lock
    _registry_lock = threading.Lock()  # it may have been held by another thread at fork time
    _pools.clear()


atexit.register(close_pools)
os.register_at_fork(after_in_child=_forget_parent_pools)


def _rmdir(path: str) -> None:
    with contextlib.suppress(OSError):  # still holds a process: left for clean_stale, by its name
        os.rmdir(path)


def confine_process(max_pids: int) -> Callable[[], None] | None:
    """Move this process into a new pids cgroup (a child of its own) capped at ``max_pids``.

    A safety net for test runs: should every sandbox layer fail, a fork bomb still stops at
    ``max_pids`` processes instead of taking the machine down. Per-run cgroups created afterwards
    nest inside it (call ``capabilities(refresh=True)`` if they were detected before). cgroup v1
    only: on v2 a cgroup holding processes cannot also hand controllers to children. Returns a
    function that moves the process back and removes the cgroup, or None where this is impossible.
    """
    (parent,) = _own_dirs("pids")
    if parent is None:
        return None
    cage = os.path.join(parent, f"rusty-sandbox-confine-{os.getpid()}")
    try:
        os.mkdir(cage)
        write_value(os.path.join(cage, "pids.max"), str(max_pids))
        write_value(os.path.join(cage, "cgroup.procs"), str(os.getpid()))
    except OSError as exc:
        logger.warning("sandbox: could not confine this process to %d pids (%s)", max_pids, exc)
        _rmdir(cage)
        return None

    def release() -> None:
        close_pools(under=cage)  # pooled run cgroups nest inside the cage: they go first
        try:
            write_value(os.path.join(parent, "cgroup.procs"), str(os.getpid()))
        except OSError:
            return
        _rmdir(cage)

    return release
