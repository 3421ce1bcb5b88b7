"""Which isolation layers work on this host: detected once per process, by trying them.

(The layers themselves, `SandboxCapabilities`, are in ``layers.py``; the probes launch through
``launch.py``, which needs nothing from here.)

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

from rusty_hf.sandbox.cgroup_discovery import CgroupSupport, detect_cgroups
from rusty_hf.sandbox.identity import build_uid_helper
from rusty_hf.sandbox.launch import SandboxError, launch_run
from rusty_hf.sandbox.isolation import IsolationSetupError, check_isolation, refusal
from rusty_hf.sandbox.layers import SandboxCapabilities
from rusty_hf.sandbox.limits import shell_ulimit_works
from rusty_hf.sandbox.netns_pool import netns_pool_works

logger = logging.getLogger("rusty_hf.sandbox")

_TOOL_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DISABLE_ENV = "RUSTY_SANDBOX_DISABLE"


def _which(name: str) -> str | None:
    return shutil.which(name, path=_TOOL_PATH)


def _probe(caps: SandboxCapabilities) -> str | None:
    """Run a trivial program with ``caps``; None if it worked, else why not."""
    try:
        # The prefix check catches a uid that cannot read this interpreter's files: Python then
        # starts anyway, on whatever stdlib it finds elsewhere (seen here: /usr/lib/python3.11).
        code = "import sys; print('sandbox-ok', sys.base_prefix)"
        result = launch_run([sys.executable, "-I", "-c", code], caps, timeout=20)
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
            logger.info("rusty_hf.sandbox layers active: %s", ", ".join(_cached.layers()))
            if refusal(_cached) is None:  # refused: every run raises the line, and whoever catches it says it once
                check_isolation(_cached)  # with the opt-in, it logs the notice (once per process)
    return _cached


def require_isolation() -> SandboxCapabilities:
    """At an entry point's start-up: the capabilities, if untrusted code may run here (``isolation.py``).

    Raises:
        IsolationSetupError: a `SetupError` whose one line names the fix (install bubblewrap) and the
            opt-in, before anything loads; a recipe's ``run_cli`` prints it and exits 2.
    """
    return check_isolation(capabilities(), IsolationSetupError)
