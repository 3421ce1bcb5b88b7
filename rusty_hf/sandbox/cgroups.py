"""Per-run cgroups: a pids cap, a memory cap, and a reliable way to kill everything a run started.

Every cgroup here is created *under this process's own cgroup* (found by ``cgroup_discovery``),
never at the root of a hierarchy, so its limits nest inside whatever the host already imposes;
each is removed when its run ends. cgroup v1 (``pids.max``, ``memory.limit_in_bytes``) and v2
(``pids.max``, ``memory.max``, ``cgroup.kill``) are both handled; a hybrid host (v1 controllers
plus an empty v2 hierarchy) gets its limits from v1 and ``cgroup.kill`` from v2.

    support = detect_cgroups()                     # cgroup_discovery; capabilities() caches it
    run_cg = RunCgroups(support, "run-1", Limits())
    argv = ["/bin/sh", "-c", run_cg.join_script(), "sh", *command]   # joins, then execs command
    ...
    run_cg.kill(); hit = run_cg.limit_hit(); run_cg.remove()
"""

from __future__ import annotations

import itertools
import logging
import os
import shlex
import signal
import time

from rusty_hf.sandbox.cgroup_discovery import CgroupSupport, write_value
from rusty_hf.sandbox.limits import MB, Limits

logger = logging.getLogger(__name__)

JOIN_FAILED_EXIT = 125
JOIN_FAILED_MARKER = "rusty_hf.sandbox: could not join cgroup"
_OPTIONAL_SETTINGS = {"memory.swap.max"}  # absent without swap accounting
# Processes bwrap itself keeps alive in the run's cgroup (its monitor and the namespace init).
_WRAPPER_PROCS = 2


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


class RunCgroups:
    """The cgroups of one run: created on construction, joined by the launcher, removed at the end."""

    def __init__(self, support: CgroupSupport, name: str, limits: Limits) -> None:
        self.support = support
        self.dirs: dict[str, str] = {}  # purpose ("pids", "memory", "kill") -> cgroup dir
        plans = (
            ("pids", support.pids_parent, self._pids_settings(limits)),
            ("memory", support.memory_parent, self._memory_settings(limits)),
            ("kill", support.kill_parent, {}),
        )
        for purpose, parent, settings in plans:
            if parent is None:
                continue
            path = os.path.join(parent, name)
            shared = path in self.dirs.values()  # pure v2: one dir serves every purpose
            try:
                if not shared:
                    os.mkdir(path)
                for file, value in settings.items():
                    try:
                        write_value(os.path.join(path, file), value)
                    except FileNotFoundError:
                        if file not in _OPTIONAL_SETTINGS:
                            raise
                self.dirs[purpose] = path
            except OSError as exc:
                logger.warning("sandbox: %s cgroup unavailable for this run (%s)", purpose, exc)
                if not shared:
                    self._rmdir(path)

    def _pids_settings(self, limits: Limits) -> dict[str, str]:
        return {"pids.max": str(limits.nproc + _WRAPPER_PROCS)}

    def _memory_settings(self, limits: Limits) -> dict[str, str]:
        # The in-memory work dir and /tmp are charged here too, hence their share on top.
        budget = str((limits.memory_mb + limits.disk_mb) * MB)
        if self.support.version == 2:
            return {"memory.max": budget, "memory.swap.max": "0"}
        return {"memory.limit_in_bytes": budget}

    @property
    def layers(self) -> tuple[str, ...]:
        return tuple(f"cgroup-{purpose}" for purpose in self.dirs)

    def join_script(self) -> str:
        """``sh -c`` script: move the shell into every cgroup of the run, then exec ``"$@"``."""
        procs = " ".join(shlex.quote(os.path.join(d, "cgroup.procs")) for d in dict.fromkeys(self.dirs.values()))
        return (
            f'for f in {procs}; do echo $$ > "$f" || '
            f'{{ echo "{JOIN_FAILED_MARKER} $f" >&2; exit {JOIN_FAILED_EXIT}; }}; done; exec "$@"'
        )

    def _procs(self) -> set[int]:
        pids: set[int] = set()
        for d in set(self.dirs.values()):
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    pids.update(int(p) for p in f.read().split())
            except (OSError, ValueError):
                pass
        return pids

    def _belongs(self, pid: int) -> bool:
        """Whether ``pid`` (already pinned by a pidfd) is still in one of this run's cgroups."""
        names = {os.path.basename(d) for d in self.dirs.values()}
        try:
            with open(f"/proc/{pid}/cgroup") as f:
                return any(os.path.basename(line.rstrip("\n")) in names for line in f)
        except OSError:
            return False

    def kill(self, wait_s: float = 1.0) -> None:
        """SIGKILL every process in the run's cgroups and wait until none is left (or ``wait_s``).

        bwrap's namespace init is typically still tearing its namespaces down when the run's main
        process has been reaped: it is signalled too, and waited for, so the cgroups can go.
        """
        if "kill" in self.dirs:
            try:
                write_value(os.path.join(self.dirs["kill"], "cgroup.kill"), "1")
            except OSError:
                pass
        signalled: set[int] = set()
        deadline = time.monotonic() + wait_s
        for sweep in itertools.count():
            if not (pids := self._procs()):
                return
            if sweep % 20 == 19:
                signalled.clear()  # in case a signalled pid exited and was recycled inside the run
            for pid in pids - signalled:
                signalled.add(pid)
                try:
                    fd = os.pidfd_open(pid)  # pins the process: a recycled pid is never signalled
                except OSError:
                    continue
                try:
                    if self._belongs(pid):
                        signal.pidfd_send_signal(fd, signal.SIGKILL)
                except OSError:
                    pass
                finally:
                    os.close(fd)
            if time.monotonic() > deadline:
                logger.warning("sandbox: processes %s still in %s after SIGKILL", sorted(pids), self.dirs)
                return
            time.sleep(0.0005)

    def limit_hit(self) -> str | None:
        """``"memory"`` after an OOM kill, ``"nproc"`` after a refused fork, else None."""
        mem = self.dirs.get("memory")
        if mem is not None:
            events = "memory.events" if self.support.version == 2 else "memory.oom_control"
            if _counter(os.path.join(mem, events), "oom_kill") > 0:
                return "memory"
        pids = self.dirs.get("pids")
        if pids is not None and _counter(os.path.join(pids, "pids.events"), "max") > 0:
            return "nproc"
        return None

    @staticmethod
    def _rmdir(path: str, wait_s: float = 1.0) -> None:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                os.rmdir(path)
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if time.monotonic() > deadline:
                    logger.warning("sandbox: could not remove cgroup %s (%s)", path, exc)
                    return
                time.sleep(0.001)  # the last killed processes are still exiting

    def remove(self) -> None:
        for path in dict.fromkeys(self.dirs.values()):
            self._rmdir(path)
