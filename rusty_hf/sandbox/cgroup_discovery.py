"""Where this process may create cgroups: discovery of its own cgroups, v1 or v2, by probing.

:func:`detect_cgroups` reads ``/proc/self/cgroup`` and ``/proc/self/mountinfo`` to find this
process's own cgroup in each hierarchy, then creates (and removes) a probe child there to learn
which per-run cgroups will work: a pids cap, a memory cap (v1 ``memory.limit_in_bytes`` or v2
``memory.max``) and v2's ``cgroup.kill``. Nothing is ever created at a hierarchy's root unless
that root is this process's own cgroup. (The test suites' safety net, ``confine_process``, is in
``cgroup_pool.py``: releasing it closes the pools inside it, and this module needs no pool.)

    support = detect_cgroups()     # CgroupSupport(pids_parent=..., memory_parent=..., kill_parent=..., version=1)
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from rusty_hf.sandbox.limits import MB

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CgroupSupport:
    """Where this process may create per-run cgroups (parent dirs), by purpose; None = unavailable."""

    pids_parent: str | None = None
    memory_parent: str | None = None
    kill_parent: str | None = None  # a cgroup2 dir whose children have cgroup.kill
    version: int | None = None  # version of the pids/memory controllers: 1, 2 or None

    @property
    def available(self) -> bool:
        """Whether a run gets any cgroup here (and so the shell that joins them)."""
        return bool(self.pids_parent or self.memory_parent or self.kill_parent)


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """Controller name (``""`` for cgroup2) -> cgroup path, from ``/proc/<pid>/cgroup`` text."""
    own: dict[str, str] = {}
    for line in text.splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            own[name] = path
    return own


def parse_mountinfo(text: str) -> list[tuple[str, str, str, set[str]]]:
    """(fs root, mount point, fstype, super options) of each cgroup mount, from mountinfo text."""
    found = []
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        if rfields and rfields[0] in ("cgroup", "cgroup2"):
            found.append((fields[3], fields[4], rfields[0], set(rfields[2].split(","))))
    return found


def cgroup_dir(controller: str, own: dict[str, str], mounts: list[tuple[str, str, str, set[str]]]) -> str | None:
    """Filesystem path of a process's cgroup for ``controller`` (``""`` = the cgroup2 tree)."""
    path = own.get(controller)
    if path is None:
        return None
    for root, point, fstype, options in mounts:
        hierarchy = fstype == "cgroup2" if controller == "" else fstype == "cgroup" and controller in options
        inside = path == root or path.startswith(root.rstrip("/") + "/")  # a container may mount a subtree
        if hierarchy and inside:
            return os.path.normpath(os.path.join(point, os.path.relpath(path, root)))
    return None


def _own_dirs(*controllers: str) -> list[str | None]:
    """This process's cgroup dir for each controller; Nones where /proc cannot tell."""
    try:
        with open("/proc/self/cgroup") as f:
            own = parse_proc_cgroup(f.read())
        with open("/proc/self/mountinfo") as f:
            mounts = parse_mountinfo(f.read())
    except (OSError, ValueError):
        return [None] * len(controllers)
    return [cgroup_dir(c, own, mounts) for c in controllers]


def _probe(parent: str, settings: dict[str, str], must_have: str | None = None) -> bool:
    """Whether a child cgroup can be created under ``parent`` and given ``settings``."""
    probe = os.path.join(parent, f"rusty-sandbox-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
    except OSError:
        return False
    try:
        for name, value in settings.items():
            with open(os.path.join(probe, name), "w") as f:
                f.write(value)
        return must_have is None or os.path.exists(os.path.join(probe, must_have))
    except OSError:
        return False
    finally:
        os.rmdir(probe)


def _enable_v2_controllers(own: str) -> set[str]:
    """Controllers that children of ``own`` get, after asking for pids and memory."""
    for name in ("pids", "memory"):
        try:
            with open(os.path.join(own, "cgroup.subtree_control"), "w") as f:
                f.write(f"+{name}")
        except OSError:
            pass  # busy (processes in own cgroup) or not delegated: keep what is there
    try:
        with open(os.path.join(own, "cgroup.subtree_control")) as f:
            return set(f.read().split())
    except OSError:
        return set()


def detect_cgroups() -> CgroupSupport:
    """Find and test which per-run cgroups this process can make. Never raises."""
    pids_dir, mem_dir, v2_dir = _own_dirs("pids", "memory", "")
    support: dict[str, str | int | None] = {}
    if pids_dir and _probe(pids_dir, {"pids.max": "16"}):
        support.update(pids_parent=pids_dir, version=1)
    if mem_dir and _probe(mem_dir, {"memory.limit_in_bytes": str(64 * MB)}):
        support.update(memory_parent=mem_dir, version=1)
    if v2_dir and os.path.exists(os.path.join(v2_dir, "cgroup.procs")):
        # On a hybrid host the controllers live in v1; only ask v2 for them on a pure-v2 host.
        enabled = _enable_v2_controllers(v2_dir) if not support else set()
        if "pids" in enabled and _probe(v2_dir, {"pids.max": "16"}):
            support.update(pids_parent=v2_dir, version=2)
        if "memory" in enabled and _probe(v2_dir, {"memory.max": str(64 * MB)}):
            support.update(memory_parent=v2_dir, version=2)
        if _probe(v2_dir, {}, must_have="cgroup.kill"):
            support["kill_parent"] = v2_dir
    return CgroupSupport(**support)  # type: ignore[arg-type]


def write_value(path: str, value: str) -> None:
    """Write one cgroup control file."""
    with open(path, "w") as f:
        f.write(value)
