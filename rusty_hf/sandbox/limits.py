"""Resource limits for one sandboxed run: the ``Limits`` dataclass and how each limit is applied.

``Limits`` is what callers tune; :func:`prlimit_argv` turns it into a ``prlimit(1)`` prefix that sets
the rlimits in the sandboxed process itself (an exec, not an extra process), and
:func:`preexec_setter` is the fallback for hosts without ``prlimit``. :func:`classify_exit` reads a
finished run back into the name of the limit it hit, if any.

    >>> Limits(cpu_s=2, memory_mb=256).rlimits()["RLIMIT_AS"]
    (268435456, 268435456)
"""

from __future__ import annotations

import dataclasses
import math
import resource
import signal
from collections.abc import Callable
from dataclasses import dataclass

MB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Per-run resource limits. The defaults suit a small test suite in Python or Rust."""

    cpu_s: float = 10  # CPU seconds per process (RLIMIT_CPU): SIGXCPU at cpu_s, SIGKILL one second later
    memory_mb: int = 1024  # address space per process (RLIMIT_AS); also the run's memory cgroup budget
    fsize_mb: int = 16  # largest file a process may write (RLIMIT_FSIZE)
    nofile: int = 256  # open file descriptors per process (RLIMIT_NOFILE)
    nproc: int = 64  # processes at once (RLIMIT_NPROC for the run's uid, and the pids cgroup)
    output_bytes: int = 1 << 20  # captured bytes per stream; more than this ends the run
    disk_mb: int = 64  # size of the in-memory work dir and of /tmp under bubblewrap

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"Limits.{field.name} must be a positive number, got {value!r}")

    def rlimits(self) -> dict[str, tuple[int, int]]:
        """The (soft, hard) rlimits to set, by ``resource`` constant name."""
        cpu = max(1, math.ceil(self.cpu_s))
        return {
            "RLIMIT_CPU": (cpu, cpu + 1),  # the soft limit signals first, so the cause is visible
            "RLIMIT_AS": (self.memory_mb * MB, self.memory_mb * MB),
            "RLIMIT_FSIZE": (self.fsize_mb * MB, self.fsize_mb * MB),
            "RLIMIT_NOFILE": (self.nofile, self.nofile),
            "RLIMIT_CORE": (0, 0),
            "RLIMIT_NPROC": (self.nproc, self.nproc),
        }


_PRLIMIT_FLAGS = {
    "RLIMIT_CPU": "--cpu",
    "RLIMIT_AS": "--as",
    "RLIMIT_FSIZE": "--fsize",
    "RLIMIT_NOFILE": "--nofile",
    "RLIMIT_CORE": "--core",
    "RLIMIT_NPROC": "--nproc",
}


def prlimit_argv(prlimit: str, limits: Limits, *, nproc: bool = True) -> list[str]:
    """``prlimit`` options that set every limit on the process, then exec the rest of the argv.

    ``nproc=False`` leaves RLIMIT_NPROC alone: it counts every process of the real uid, so it is only
    meaningful when the run has a uid (or user namespace) of its own.
    """
    argv = [prlimit]
    for name, (soft, hard) in limits.rlimits().items():
        if name == "RLIMIT_NPROC" and not nproc:
            continue
        argv.append(f"{_PRLIMIT_FLAGS[name]}={soft}:{hard}")
    argv.append("--")
    return argv


def preexec_setter(limits: Limits, *, nproc: bool = True) -> Callable[[], None]:
    """A ``preexec_fn`` that sets the rlimits (fallback when ``prlimit(1)`` is missing).

    It runs between fork and exec, so it only calls ``setrlimit`` on values computed beforehand.
    """
    pairs = [
        (getattr(resource, name), value) for name, value in limits.rlimits().items() if nproc or name != "RLIMIT_NPROC"
    ]

    def _set() -> None:
        for which, value in pairs:
            resource.setrlimit(which, value)

    return _set


# Python reports most limits as an exception instead of dying by signal; these are the last
# lines it (or libc's strerror in any program) prints when a limit was the cause.
_STDERR_MARKERS = (
    ("MemoryError", "memory"),
    ("Cannot allocate memory", "memory"),
    ("File too large", "fsize"),
    ("Too many open files", "nofile"),
    ("Resource temporarily unavailable", "nproc"),
)


def classify_exit(returncode: int | None, stderr_tail: str) -> str | None:
    """The limit a failed run most likely hit, from its exit signal or its last words on stderr.

    Exact for signals (SIGXCPU, SIGXFSZ); a best-effort reading of stderr otherwise. Returns None
    for a clean exit or an ordinary failure.
    """
    if returncode == 0 or returncode is None:
        return None
    if returncode == -signal.SIGXCPU:
        return "cpu"
    if returncode == -signal.SIGXFSZ:
        return "fsize"
    for marker, name in _STDERR_MARKERS:
        if marker in stderr_tail:
            return name
    return None
