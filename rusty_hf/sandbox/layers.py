"""The isolation layers a sandboxed run can have on this host, as one value: `SandboxCapabilities`.

``capabilities.py`` detects which work here and caches the answer; ``launch.py`` builds a run's
wrapper chain from one. This module only describes them (``layers()``, ``describe()``) and narrows
them (``without``), so both can import it.

    caps = capabilities().without("bwrap", "cgroups")    # e.g. to measure a layer's cost
    print(caps.describe())
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from rusty_hf.sandbox.cgroup_discovery import CgroupSupport

BASE_LAYERS = ("workdir", "clean-env", "stdin-null", "session-kill", "timeout", "output-cap")
INSTALL_HINT = "`apt-get install bubblewrap` (Debian/Ubuntu; `bubblewrap` on other distros too)"
ALLOW_ENV = "RUSTY_SANDBOX_ALLOW_UNISOLATED"  # the opt-in to runs without bubblewrap (isolation.py)


@dataclass(frozen=True)
class SandboxCapabilities:
    """The layers a run can use here. Build one with :func:`capabilities`, narrow it with ``without``."""

    root: bool
    prlimit: str | None  # rlimits via prlimit(1); None falls back to a preexec_fn
    setpriv: str | None  # uid switch (root only)
    bwrap: str | None  # bubblewrap: mounts, net/pid/ipc/uts namespaces, no capabilities
    unshare: str | None  # fallback namespaces (net/pid/ipc/uts, no filesystem isolation), root only
    nonroot_uid: bool  # sandboxed code runs as a non-root uid
    cgroups: CgroupSupport = dataclasses.field(default_factory=CgroupSupport)
    shell_ulimit: bool = False  # the /bin/sh that joins a run's cgroups can set its rlimits (no prlimit exec)
    netns_pool: bool = False  # runs lease a reusable network namespace instead of making one (root only)
    start_gate: bool = False  # bwrap holds the run at its start while the parent sets the rlimits (no sh exec)
    uid_helper: str | None = None  # the compiled uidswitch (identity.py), used in setpriv's place
    notes: tuple[str, ...] = ()  # why a layer is off

    @property
    def userns(self) -> bool:
        """bwrap adds a user namespace only when not root (as root it would map nobody but uid 0)."""
        return self.bwrap is not None and not self.root

    @property
    def switches_uid(self) -> bool:
        return self.root and self.nonroot_uid and (self.uid_helper is not None or self.setpriv is not None)

    @property
    def gated_start(self) -> bool:
        """Whether runs start through the gate: root's bwrap, cgroups a spawning thread can join (v1)."""
        cg = self.cgroups  # v1 only: on a hybrid host the v1 pids cgroup kills, and no v2 dir is joined
        v1_only = cg.version == 1 and (cg.kill_parent is None or cg.pids_parent is not None)
        return self.start_gate and self.root and self.bwrap is not None and cg.available and v1_only

    @property
    def nproc_rlimit(self) -> bool:
        """RLIMIT_NPROC counts all processes of the real uid, so set it only where that uid is the run's."""
        return self.switches_uid or self.userns

    def layers(self, network: bool = False) -> tuple[str, ...]:
        """Names of the layers a run with these capabilities gets."""
        names = list(BASE_LAYERS)
        names += ["rlimits"] + (["rlimit-nproc"] if self.nproc_rlimit else [])
        if self.bwrap:
            names += ["bwrap-fs", "pidns", "ipcns", "utsns", "no-caps"] + (["userns"] if self.userns else [])
        elif self.unshare:
            names += ["pidns", "ipcns", "utsns"]
        if (self.bwrap or self.unshare) and not network:
            names.append("netns")
        if self.nonroot_uid:
            names.append("nonroot-uid")
        if self.switches_uid:
            names.append("own-uid")  # a uid no other process shares: it cannot signal its caller
        cg = self.cgroups
        names += [f"cgroup-{n}" for n, p in (("pids", cg.pids_parent), ("memory", cg.memory_parent)) if p]
        if cg.kill_parent or (cg.pids_parent and cg.version == 1):  # a v1 pids cgroup kills too (cgroups.py)
            names.append("cgroup-kill")
        return tuple(names)

    def without(self, *layers: str) -> SandboxCapabilities:
        """A copy with layers switched off: any of "bwrap", "unshare", "uid", "cgroups", "prlimit", "ulimit",
        "netns-pool", "start-gate", "uid-helper" (the last four keep their layer but set it up the slower
        way: with prlimit, a fresh namespace, the cgroup-joining shell, setpriv)."""
        changes: dict[str, object] = {}
        for name in layers:
            if name in ("bwrap", "unshare", "prlimit"):
                changes[name] = None
            elif name == "ulimit":
                changes["shell_ulimit"] = False
            elif name == "netns-pool":
                changes["netns_pool"] = False
            elif name == "start-gate":
                changes["start_gate"] = False
            elif name == "uid-helper":
                changes["uid_helper"] = None
            elif name == "uid":
                changes["nonroot_uid"] = not self.root  # a non-root caller cannot be root again
            elif name == "cgroups":
                changes["cgroups"] = CgroupSupport()
            else:
                raise ValueError(
                    f"unknown sandbox layer {name!r}; "
                    "use bwrap, unshare, uid, cgroups, prlimit, ulimit, netns-pool, start-gate or uid-helper"
                )
        return dataclasses.replace(self, **changes)

    def describe(self) -> str:
        """What is isolated here and what is not, one line per layer."""
        cg = self.cgroups

        namespaces = self.bwrap or self.unshare

        def row(on: object, text: str, exposed: str = "") -> str:  # ``exposed``: what a run can do while it is off
            return f"  [{'on ' if on else 'off'}] {text}" + (f" -- while off, {exposed}" if exposed and not on else "")

        lines = [
            f"rusty_hf.sandbox on this host (running as {'root' if self.root else f'uid {os.geteuid()}'}):",
            row(
                True,
                "subprocess in a fresh work dir, clean env, stdin /dev/null, own session killed at the end, "
                "wall-clock timeout, capped output",
            ),
            row(
                True,
                f"rlimits CPU/AS/FSIZE/NOFILE/CORE{'/NPROC' if self.nproc_rlimit else ''} via "
                + ("prlimit(2) while bwrap holds the run at its start (v1 cgroups joined at the spawn), else "
                   if self.gated_start else "")
                + (f"ulimit in the cgroup-joining /bin/sh, else {self.prlimit or 'preexec_fn'}"
                   if self.shell_ulimit and cg.available
                   else f"{self.prlimit or 'preexec_fn'}"),
            ),
            row(
                self.bwrap,
                f"bubblewrap{' ' + self.bwrap if self.bwrap else ''}: read-only system, private /tmp, "
                "in-memory work dir, no network, pid/ipc/uts namespaces, no capabilities"
                + ("" if self.bwrap else f" -- to enable: {INSTALL_HINT}"),
                "a run reads and writes every file its uid may: host secrets, the repository, home folders (so "
                f"runs are refused unless {ALLOW_ENV}=1)",
            ),
            row(
                self.netns_pool and (self.bwrap or self.unshare),
                "network namespaces leased from a pool (one run at a time, closed once a run used a socket) "
                "instead of made per run",
            ),
            row(
                self.unshare and not self.bwrap,
                "unshare fallback: no network, pid/ipc/uts namespaces (host filesystem stays visible)",
                "" if namespaces else "a run reaches the network (internet, host loopback services) and sees the "
                "host's processes (and signals those of its uid)",
            ),
            row(
                self.nonroot_uid,
                "non-root uid"
                + (f" (own uid per run via {'the compiled uidswitch' if self.uid_helper else 'setpriv'})"
                   if self.switches_uid else "")
                + ("" if self.nonroot_uid else ": code runs as root"),
                "it reaches every file and process root can " + ("inside bubblewrap's view" if self.bwrap else "on the host"),
            ),
            row(cg.pids_parent, "pids cgroup per run" + _where(cg.pids_parent, cg.version),
                "a run may start as many processes as RLIMIT_NPROC allows" if self.nproc_rlimit
                else "a run may start any number of processes (a fork bomb takes the host)"),
            row(cg.memory_parent, "memory cgroup per run" + _where(cg.memory_parent, cg.version),
                "N processes may use N times the memory cap (RLIMIT_AS is per process); in-memory files count nowhere"),
            row(cg.kill_parent or "cgroup-kill" in self.layers(), _kill_row(cg),
                "" if namespaces else "a daemonised child (setsid) may outlive the run"),
        ]
        return "\n".join(lines + [f"  note: {n}" for n in self.notes])


def _kill_row(cg: CgroupSupport) -> str:
    if cg.pids_parent and cg.version == 1:
        return "kill of the whole run via its v1 pids cgroup (pids.max 0, then a SIGKILL sweep)"
    return "cgroup.kill per run" + _where(cg.kill_parent, 2)


def _where(parent: str | None, version: int | None) -> str:
    if parent is None:
        return ": no writable cgroup under this process's own"
    return f" (cgroup v{version}, under {parent})"


__all__ = ["ALLOW_ENV", "BASE_LAYERS", "INSTALL_HINT", "SandboxCapabilities"]
