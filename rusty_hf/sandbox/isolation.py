"""Fail closed: untrusted code runs only with filesystem isolation (bubblewrap), unless the user opts in.

Without bubblewrap the sandbox still has its other layers (rlimits, a work dir, cgroups, a uid of
its own as root), but a run can read and write every file its uid can: host secrets, the
repository, the user's home. So ``runner.run`` refuses such a run with one line naming the fix
(:class:`IsolationMissing`), and entry points check at start-up (``capabilities.require_isolation``)
so that a training run, an evaluation or a server refuses before it starts, not at its first reward.

One switch opts in, knowingly: ``RUSTY_SANDBOX_ALLOW_UNISOLATED=1`` (for machines that are
themselves disposable, e.g. a GPU image without bubblewrap or apt). A process that uses it says so
in its log, once, at its first check or run.

    from rusty_hf.sandbox.isolation import refusal
    line = refusal(capabilities())      # None when runs may start here, else the one line
"""

from __future__ import annotations

import logging
import os
import threading

from rusty_hf.sandbox.launch import SandboxError
from rusty_hf.sandbox.layers import ALLOW_ENV, INSTALL_HINT, SandboxCapabilities
from rusty_hf.errors import SetupError

logger = logging.getLogger("rusty_hf.sandbox")

_PROBE_FIX = "let bubblewrap run here (it needs unprivileged user namespaces, or root)"


class IsolationMissing(SandboxError):
    """A run refused: no filesystem isolation and no opt-in. A RuntimeError, not a ValueError: callers
    that show a refused command (a ValueError) as its result must not score or show this one as such."""


class IsolationSetupError(SetupError):
    """The same refusal at an entry point's start-up: one line on stderr and exit status 2 (``run_cli``)."""


def unisolated_allowed() -> bool:
    """Whether the user opted in to runs without bubblewrap (``RUSTY_SANDBOX_ALLOW_UNISOLATED``: 1/true/yes)."""
    return os.environ.get(ALLOW_ENV, "").strip().lower() in ("1", "true", "yes")


def _why(caps: SandboxCapabilities) -> str:
    notes = [n for n in caps.notes if n.startswith("bwrap")]
    return " ".join("; ".join(notes).split()) or "bubblewrap is unusable"  # one line, whatever a probe printed


def refusal(caps: SandboxCapabilities) -> str | None:
    """The one line refusing untrusted code on a host with ``caps``, or None when it may run."""
    if caps.bwrap is not None or unisolated_allowed():
        return None
    fix = _PROBE_FIX if any("failed its probe" in n for n in caps.notes) else INSTALL_HINT
    return (
        f"rusty_hf.sandbox refuses to run untrusted code without filesystem isolation ({_why(caps)}). "
        f"Fix: {fix}; or, on a disposable machine only (the code can then read and write every file "
        f"this user can), set {ALLOW_ENV}=1"
    )


def opt_in_notice(caps: SandboxCapabilities) -> str:
    """The line a process logs when it runs untrusted code unisolated because the user opted in."""
    who = "root" if caps.root else f"uid {os.geteuid()}"
    return (
        f"rusty_hf.sandbox: {ALLOW_ENV}=1: untrusted code runs WITHOUT filesystem isolation ({_why(caps)}); "
        f"it can read and write every file {who} can. To isolate it: {INSTALL_HINT}, and unset {ALLOW_ENV}"
    )


_said = threading.Event()


def check_isolation(caps: SandboxCapabilities, error: type[Exception] = IsolationMissing) -> SandboxCapabilities:
    """Return ``caps`` if untrusted code may run with them; else raise ``error`` with the one line.

    Where runs go unisolated because the user opted in, the opt-in notice is logged (once per process).
    """
    line = refusal(caps)
    if line is not None:
        raise error(line)
    if caps.bwrap is None and not _said.is_set():
        _said.set()
        logger.warning(opt_in_notice(caps))
    return caps


__all__ = [
    "ALLOW_ENV",
    "IsolationMissing",
    "IsolationSetupError",
    "check_isolation",
    "opt_in_notice",
    "refusal",
    "unisolated_allowed",
]
