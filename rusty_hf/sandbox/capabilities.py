"""Which isolation layers work on this host: detected once per process, by trying them.

:func:`capabilities` finds the tools (``bwrap``, ``prlimit``, ``setpriv``, ``unshare``) and the
cgroups this process may create, then runs a tiny probe program through the sandbox with each
candidate layer; a layer that fails its probe is switched off with the reason recorded. The answer
is cached, logged once, and explained by ``describe()``.

    >>> print(capabilities().describe())            # doctest: +SKIP
    >>> bare = capabilities().without("bwrap", "cgroups")   # e.g. to measure a layer's cost
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import sys
import threading
from dataclasses import dataclass

from rusty_hf.sandbox.cgroup_discovery import CgroupSupport, detect_cgroups
from rusty_hf.sandbox.identity import build_uid_helper
from rusty_hf.sandbox.limits import shell_ulimit_works
from rusty_hf.sandbox.netns_pool import netns_pool_works

logger = logging.getLogger("rusty_hf.sandbox")

_TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BASE_LAYERS = ("workdir", "clean-env", "stdin-null", "session-kill", "timeout", "output-cap")
DISABLE_ENV = "RUSTY_SANDBOX_DISABLE"
INSTALL_HINT = "`apt-get install bubblewrap` (Debian/Ubuntu; `bubblewrap` on other distros too)"


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

        def row(on: object, text: str) -> str:
            return f"  [{'on ' if on else 'off'}] {text}"

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
            ),
            row(
                self.netns_pool and (self.bwrap or self.unshare),
                "network namespaces leased from a pool (one run at a time, closed once a run used a socket) "
                "instead of made per run",
            ),
            row(
                self.unshare and not self.bwrap,
                "unshare fallback: no network, pid/ipc/uts namespaces (host filesystem stays visible)",
            ),
            row(
                self.nonroot_uid,
                "non-root uid"
                + (f" (own uid per run via {'the compiled uidswitch' if self.uid_helper else 'setpriv'})"
                   if self.switches_uid else "")
                + ("" if self.nonroot_uid else ": code runs as root"),
            ),
            row(cg.pids_parent, "pids cgroup per run" + _where(cg.pids_parent, cg.version)),
            row(cg.memory_parent, "memory cgroup per run" + _where(cg.memory_parent, cg.version)),
            row(cg.kill_parent or "cgroup-kill" in self.layers(), _kill_row(cg)),
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


def _which(name: str) -> str | None:
    return shutil.which(name, path=_TOOL_PATH)


def _probe(caps: SandboxCapabilities) -> str | None:
    """Run a trivial program with ``caps``; None if it worked, else why not."""
    from rusty_hf.sandbox.runner import SandboxError, run  # runner needs this module; import late

    try:
        # The prefix check catches a uid that cannot read this interpreter's files: Python then
        # starts anyway, on whatever stdlib it finds elsewhere (seen here: /usr/lib/python3.11).
        code = "import sys; print('sandbox-ok', sys.base_prefix)"
        result = run([sys.executable, "-I", "-c", code], timeout=20, caps=caps)
    except (SandboxError, OSError) as exc:
        return str(exc)
    if result.ok and result.stdout.strip() == f"sandbox-ok {sys.base_prefix}":
        return None
    if result.ok:
        return f"the interpreter started with another stdlib ({result.stdout.strip()})"
    return (result.stderr.strip().splitlines() or [f"exit code {result.returncode}"])[-1][:200]


# The faster ways of setting up a layer, each with the slower way that replaces it when a probe fails.
_MECHANISMS = (
    ("start-gate", "gated_start", "the cgroup-joining shell"),
    ("netns-pool", "netns_pool", "a namespace made per run"),
    ("uid-helper", "uid_helper", "setpriv"),
)


def _drop_failing_mechanisms(
    caps: SandboxCapabilities, why: str | None, where: str, notes: list[str], also: tuple[str, ...] = ()
) -> tuple[SandboxCapabilities, str | None]:
    """After a failed probe (``why``), switch off the first mechanism in use whose absence makes it pass.

    ``also``: layers the probe runs without. Returns the capabilities and why the probe still fails (None).
    """
    for name, attribute, fallback in _MECHANISMS:
        if why and getattr(caps, attribute) and _probe(caps.without(*also, name)) is None:
            notes.append(f"{name} failed {where} ({why}); {fallback} instead")
            return caps.without(name), None
    return caps, why


def detect(skip: tuple[str, ...] = ()) -> SandboxCapabilities:
    """Find the tools and cgroups, then keep each layer only if a probe run through it works.

    ``skip`` pretends layers are missing ("bwrap", "unshare", "uid", "cgroups", "prlimit", "ulimit",
    "netns-pool", "start-gate", "uid-helper"), to see
    what another host would get; ``capabilities()`` is ``detect()`` cached.
    """
    root = os.geteuid() == 0
    caps = SandboxCapabilities(
        root=root,
        prlimit=_which("prlimit"),
        setpriv=_which("setpriv") if root else None,
        bwrap=_which("bwrap"),
        unshare=_which("unshare") if root else None,
        nonroot_uid=not root or _which("setpriv") is not None or "uid-helper" not in skip,  # settled below
        cgroups=detect_cgroups() if "cgroups" not in skip else CgroupSupport(),
        shell_ulimit="ulimit" not in skip and shell_ulimit_works(),
        start_gate=root,
    ).without(*skip)
    notes: list[str] = [f"{name} disabled on request" for name in skip]
    if root and "uid-helper" not in skip and "uid" not in skip:
        helper, why_not = build_uid_helper()
        caps = dataclasses.replace(caps, uid_helper=helper)
        if why_not:
            notes.append(why_not)
        if helper is None and caps.setpriv is None:
            caps = caps.without("uid")
    if root and "netns-pool" not in skip:
        why_not = netns_pool_works()
        caps = dataclasses.replace(caps, netns_pool=why_not is None)
        if why_not:
            notes.append(f"network namespaces are made per run: a reusable one could not be set up ({why_not})")
    if "bwrap" not in skip and caps.bwrap is None:
        notes.append("bwrap not found on PATH")
    for layer in ("ulimit", "cgroups", "prlimit"):  # the plain layers first, so later probes isolate faults
        why = _probe(caps.without("bwrap", "unshare", "uid"))
        if why is None:
            break
        notes.append(f"{layer} switched off: a plain run failed with it ({why})")
        caps = caps.without(layer)
    if caps.bwrap:
        caps, why = _drop_failing_mechanisms(caps, _probe(caps), "under bwrap", notes)
        if why and caps.switches_uid and _probe(caps.without("uid")) is None:
            notes.append(f"uid switch under bwrap failed ({why})")
            caps = caps.without("uid")
        elif why:
            notes.append(f"bwrap {caps.bwrap} failed its probe ({why})")
            caps = caps.without("bwrap")
    if caps.bwrap:
        caps = caps.without("unshare")  # bwrap already gives these namespaces
    else:
        if caps.unshare and (why := _probe(caps.without("uid"))):
            caps, why = _drop_failing_mechanisms(caps, why, "under unshare", notes, also=("uid",))
            if why:
                notes.append(f"unshare fallback failed ({why})")
                caps = caps.without("unshare")
        if caps.switches_uid and (why := _probe(caps)):
            caps, why = _drop_failing_mechanisms(caps, why, "without bwrap", notes)
            if why:  # e.g. this interpreter lives under /root (mode 700), unreadable to any other uid
                notes.append(f"uid switch without bwrap failed ({why})")
                caps = caps.without("uid")
    return dataclasses.replace(caps, notes=tuple(notes))


_lock = threading.Lock()
_cached: SandboxCapabilities | None = None


def capabilities(refresh: bool = False) -> SandboxCapabilities:
    """The layers that work here: detected on first use (a few probe runs), then cached.

    ``refresh=True`` detects again, e.g. after moving this process to another cgroup. The
    environment variable ``RUSTY_SANDBOX_DISABLE`` (comma-separated: bwrap, unshare, uid, cgroups,
    prlimit, ulimit, netns-pool, start-gate, uid-helper) switches layers off, e.g. to see how the
    code behaves on a host without bubblewrap.
    """
    global _cached
    with _lock:
        if _cached is None or refresh:
            disabled = os.environ.get(DISABLE_ENV, "")
            _cached = detect(skip=tuple(name.strip() for name in disabled.split(",") if name.strip()))
            layers = ", ".join(_cached.layers())
            if _cached.bwrap:
                logger.info("rusty_hf.sandbox layers active: %s", layers)
            else:
                why = "; ".join(n for n in _cached.notes if n.startswith("bwrap")) or "bwrap unusable"
                logger.warning(
                    "rusty_hf.sandbox runs without bubblewrap (%s): no filesystem isolation. Active layers: %s. "
                    "To enable it: %s", why, layers, INSTALL_HINT,
                )  # fmt: skip
    return _cached
