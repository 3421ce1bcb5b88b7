"""Per-run cgroups: a pids cap, a memory cap, and a reliable way to kill everything a run started.

A :class:`RunCgroups` is one set of cgroups (pids, memory, and a cgroup2 dir for ``cgroup.kill``)
created *under this process's own cgroup* (found by ``cgroup_discovery``), never at the root of a
hierarchy, so its limits nest inside whatever the host already imposes. Sets are reused run after
run through ``cgroup_pool.CgroupPool``: creating and removing cgroups per run costs little, but it
leaves dying memory cgroups behind in the kernel. cgroup v1 (``pids.max``,
``memory.limit_in_bytes``) and v2 (``pids.max``, ``memory.max``, ``cgroup.kill``) are both handled.

Joining is what costs: moving a whole process between cgroups takes the kernel's global
threadgroup lock, whose writer waits for an RCU grace period (~10 ms on an idle host, and forks
everywhere stall meanwhile). Moving only the *current thread* skips that lock. Where every cgroup
of the run is v1 (which lets one thread of a process sit apart), the thread that spawns the run
does it (``joined_by_this_thread``): it moves itself in, spawns, and moves itself back, and the
spawned chain is born inside. Otherwise the run's first process (a single-threaded ``sh``) writes
``0`` to each ``tasks`` (v1) or ``cgroup.procs`` (v2) file before it execs the rest. On a hybrid host
the v1 pids cgroup also does the killing (``pids.max`` set to 0, so nothing in it can fork, then a
SIGKILL sweep) and the v2 cgroup is not joined at all. A pure-v2 host pays one grace period per
run, unless its cgroup2 mount has the ``favordynmods`` option (Linux >= 6.0; a host setting).

    run_cg = RunCgroups(support, "rusty-sandbox-pool-...-0")
    run_cg.configure(Limits()); run_cg.begin()
    argv = ["/bin/sh", "-c", run_cg.join_script(), "sh", *command]   # joins, then execs command
    ...
    run_cg.kill(); hit = run_cg.limit_hit(); run_cg.settle()      # back to the pool, or .remove()
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import threading
import time
from collections.abc import Iterator

from rusty_hf.sandbox.cgroup_discovery import CgroupSupport, write_value
from rusty_hf.sandbox.limits import MB, Limits
from rusty_hf.sandbox.processes import procs_in, sweep

logger = logging.getLogger(__name__)

JOIN_FAILED_EXIT = 125
JOIN_FAILED_MARKER = "rusty_hf.sandbox: could not join cgroup"
_OPTIONAL_SETTINGS = {"memory.swap.max"}  # absent without swap accounting
# Processes bwrap itself keeps alive in the run's cgroup (its monitor and the namespace init).
_WRAPPER_PROCS = 2
# Memory a finished run may leave charged (kernel objects, page cache it read first) before the
# set is reclaimed; above _LEFTOVER_MAX even after reclaim, the set is not reused.
_LEFTOVER_RECLAIM, _LEFTOVER_MAX = 4 * MB, 32 * MB


def _counter(path: str, key: str) -> int:
    """Value of ``key`` in a flat-keyed cgroup file (``memory.events``, ``pids.events``...)."""
    try:
        with open(path) as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _read_int(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def rmdir_wait(path: str, wait_s: float = 1.0) -> bool:
    """Remove one cgroup dir, retrying while its last killed processes exit; False if it stays."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if time.monotonic() > deadline:
                if wait_s > 0:  # a zero wait is a retry of a removal that already warned
                    logger.warning("sandbox: could not remove cgroup %s yet (%s); retried later", path, exc)
                return False
            time.sleep(0.001)


class RunCgroups:
    """One reusable set of per-run cgroups: configured and baselined per run, killed and checked after."""

    def __init__(self, support: CgroupSupport, name: str) -> None:
        self.support = support
        self.name = name
        self.dirs: dict[str, str] = {}  # purpose ("pids", "memory", "kill") -> cgroup dir
        self.homes: dict[str, str] = {}  # purpose -> the dir it was made in: this process's own cgroup
        self.degraded = False  # a setting failed: this set must not be reused
        self._written: dict[str, str] = {}  # control file -> value last written there
        self._baseline: dict[str, int] = {}
        self._pids_hits_at_kill: int | None = None
        v1_pids = support.pids_parent is not None and support.version == 1
        for purpose, parent in (
            ("pids", support.pids_parent),
            ("memory", support.memory_parent),
            ("kill", None if v1_pids else support.kill_parent),  # v1 pids kills as well, without the lock
        ):
            if parent is None:
                continue
            path = os.path.join(parent, name)
            try:
                if path not in self.dirs.values():  # pure v2: one dir serves every purpose
                    os.mkdir(path)
                self.dirs[purpose] = path
                self.homes[purpose] = parent
            except OSError as exc:
                logger.warning("sandbox: %s cgroup unavailable (%s)", purpose, exc)

    @property
    def layers(self) -> tuple[str, ...]:
        kills = "kill" in self.dirs or ("pids" in self.dirs and self.support.version == 1)
        return tuple(f"cgroup-{p}" for p in ("pids", "memory") if p in self.dirs) + (("cgroup-kill",) if kills else ())

    def _v1(self, purpose: str) -> bool:
        return purpose != "kill" and self.support.version == 1

    def _settings(self, limits: Limits) -> dict[str, dict[str, str]]:
        # The in-memory work dir and /tmp are charged to the memory cgroup too, hence their share.
        budget = str((limits.memory_mb + limits.disk_mb) * MB)
        memory = {"memory.limit_in_bytes": budget} if self._v1("memory") else {"memory.max": budget, "memory.swap.max": "0"}
        # Dead processes of the last run that nobody has reaped yet (orphans wait for the host's
        # init, ~2 s on some hosts) still hold a pid charge; ``settle`` made sure none is alive.
        dying = _read_int(os.path.join(self.dirs["pids"], "pids.current")) or 0 if "pids" in self.dirs else 0
        return {"pids": {"pids.max": str(limits.nproc + _WRAPPER_PROCS + dying)}, "memory": memory}

    def configure(self, limits: Limits) -> bool:
        """Write the limits (only those that changed since the last run); False if one failed."""
        for purpose, settings in self._settings(limits).items():
            if purpose not in self.dirs:
                continue
            for file, value in settings.items():
                path = os.path.join(self.dirs[purpose], file)
                if self._written.get(path) == value:
                    continue
                try:
                    write_value(path, value)
                    self._written[path] = value
                except FileNotFoundError:
                    if file not in _OPTIONAL_SETTINGS:
                        self._fail(purpose, file)
                        break
                    self._written[path] = value  # absent here: no need to try again
                except OSError:
                    self._fail(purpose, file)
                    break
        return not self.degraded

    def _fail(self, purpose: str, file: str) -> None:
        logger.warning("sandbox: could not set %s in %s; this run goes without that cap", file, self.dirs[purpose])
        self.degraded = True
        if list(self.dirs.values()).count(self.dirs[purpose]) == 1:
            rmdir_wait(self.dirs[purpose], 0)
        del self.dirs[purpose]

    def _counters(self) -> dict[str, int]:
        mem, pids = self.dirs.get("memory"), self.dirs.get("pids")
        counts = {}
        if mem is not None:
            events = "memory.oom_control" if self._v1("memory") else "memory.events"
            counts["memory"] = _counter(os.path.join(mem, events), "oom_kill")
        if pids is not None:
            counts["nproc"] = _counter(os.path.join(pids, "pids.events"), "max")
        return counts

    def begin(self) -> None:
        """Baseline the cumulative event counters, so a verdict only counts this run's events."""
        self._baseline = self._counters()
        self._pids_hits_at_kill = None

    def join_script(self) -> str:
        """``sh -c`` script: move the (single-threaded) shell into every cgroup of the run, then exec ``"$@"``."""
        files = {os.path.join(d, "tasks" if self._v1(p) else "cgroup.procs"): None for p, d in self.dirs.items()}
        quoted = " ".join(shlex.quote(f) for f in files)
        return (
            f'for f in {quoted}; do echo 0 > "$f" || '
            f'{{ echo "{JOIN_FAILED_MARKER} $f" >&2; exit {JOIN_FAILED_EXIT}; }}; done; exec "$@"'
        )

    @property
    def thread_joinable(self) -> bool:
        """Whether the calling thread may join the run's cgroups alone: all v1, and not the main thread.

        v1 charges a process's memory to the memory cgroup of its thread-group leader, so the main
        thread must never sit in a run's: every allocation of the whole process would be charged
        (and could be OOM-killed) there meanwhile. Runs started from the main thread take the shell.
        """
        if threading.get_native_id() == os.getpid():
            return False
        return bool(self.dirs) and all(self._v1(purpose) for purpose in self.dirs)

    @contextlib.contextmanager
    def joined_by_this_thread(self) -> Iterator[None]:
        """The calling thread inside the run's (v1) cgroups, then back in this process's own ones.

        What the thread spawns meanwhile is born inside. Only this thread moves (``tasks``, ``0``),
        which needs no global lock. The process's memory stays charged where it was: v1 charges it
        to the cgroup of the thread-group leader, which never moves (``thread_joinable``).
        """
        if not self.thread_joinable:
            raise RuntimeError(f"cgroups {self.dirs} cannot be joined by this thread alone (v2, or the main thread)")
        joined: list[str] = []
        try:
            for purpose, d in self.dirs.items():
                write_value(os.path.join(d, "tasks"), "0")
                joined.append(purpose)
            yield
        finally:
            for purpose in reversed(joined):
                write_value(os.path.join(self.homes[purpose], "tasks"), "0")

    def procs(self) -> set[int]:
        return procs_in(list(dict.fromkeys(self.dirs.values())))

    def kill(self, wait_s: float = 1.0) -> None:
        """SIGKILL every process in the run's cgroups and wait until none is left (or ``wait_s``).

        v2: ``cgroup.kill``. v1: ``pids.max`` goes to 0 first, so nothing left can fork while the
        sweep signals what is listed. bwrap's namespace init is typically still tearing its
        namespaces down when the main process has been reaped: it is signalled and waited for too.
        """
        if not self.procs():
            return  # the usual case under a pid namespace: nothing can be forking into an empty cgroup
        if "kill" in self.dirs:
            try:
                write_value(os.path.join(self.dirs["kill"], "cgroup.kill"), "1")
            except OSError:
                pass
        elif "pids" in self.dirs:
            if self._pids_hits_at_kill is None:  # forks refused from here on are the kill's, not the run's
                self._pids_hits_at_kill = self._counters().get("nproc", 0)
            path = os.path.join(self.dirs["pids"], "pids.max")
            try:
                write_value(path, "0")
                self._written[path] = "0"
            except OSError:
                self._written.pop(path, None)
        left = sweep(list(dict.fromkeys(self.dirs.values())), wait_s)
        if left:
            logger.warning("sandbox: processes %s still in %s after SIGKILL", sorted(left), self.dirs)

    def limit_hit(self) -> str | None:
        """``"memory"`` after an OOM kill in this run, ``"nproc"`` after a refused fork, else None."""
        now = self._counters()
        if self._pids_hits_at_kill is not None:
            now["nproc"] = self._pids_hits_at_kill
        for name in ("memory", "nproc"):
            if now.get(name, 0) > self._baseline.get(name, 0):
                return name
        return None

    def intact(self) -> bool:
        """Whether every dir still exists (another process's stale sweep could have taken one)."""
        return all(os.path.isdir(d) for d in self.dirs.values())

    def settle(self, wait_s: float = 0.5) -> bool:
        """After ``kill``: True once no live process or child cgroup is left and memory is reclaimed."""
        dirs = list(dict.fromkeys(self.dirs.values()))
        deadline = time.monotonic() + wait_s
        while self.procs() or self._live_threads():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        if any(entry.is_dir() for d in dirs for entry in os.scandir(d)):
            return False  # a run made a cgroup of its own: never reuse this set
        return self._reclaim_memory()

    def _live_threads(self) -> bool:
        """v1 ``tasks`` lists every live thread (``cgroup.procs`` lists thread-group leaders)."""
        for purpose, d in self.dirs.items():
            if self._v1(purpose):
                try:
                    with open(os.path.join(d, "tasks")) as f:
                        if f.read().strip():
                            return True
                except OSError:
                    pass
        return False

    def _reclaim_memory(self) -> bool:
        mem = self.dirs.get("memory")
        if mem is None:
            return True
        usage_file = "memory.usage_in_bytes" if self._v1("memory") else "memory.current"
        usage = _read_int(os.path.join(mem, usage_file)) or 0
        if usage > _LEFTOVER_RECLAIM:
            try:
                if self._v1("memory"):
                    write_value(os.path.join(mem, "memory.force_empty"), "0")
                else:
                    write_value(os.path.join(mem, "memory.reclaim"), str(usage))
            except OSError:
                pass  # memory.reclaim needs Linux >= 5.19; the check below decides
            usage = _read_int(os.path.join(mem, usage_file)) or 0
        return usage <= _LEFTOVER_MAX

    def remove(self, wait_s: float = 1.0) -> bool:
        """Kill what is left and remove the dirs (waiting up to ``wait_s`` each); False if one stays."""
        if self.procs():
            self.kill()
        return all([rmdir_wait(path, wait_s) for path in dict.fromkeys(self.dirs.values())])  # noqa: C419 (try every dir)
