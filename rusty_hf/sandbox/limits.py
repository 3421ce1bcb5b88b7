"""Resource limits for one sandboxed run: the ``Limits`` dataclass and how each limit is applied.

``Limits`` is what callers tune; :func:`ulimit_script` turns it into ``ulimit`` commands for the
``/bin/sh`` that already joins the run's cgroups (no extra exec: ~1.5 ms a run less), or
:func:`prlimit_argv` into a ``prlimit(1)`` prefix that sets the rlimits in the sandboxed process
itself (an exec, not an extra process); :func:`preexec_setter` is the fallback for hosts without
``prlimit``. :func:`classify_exit` reads a
finished run back into the name of the limit it hit, if any.

    >>> Limits(cpu_s=2, memory_mb=256).rlimits()["RLIMIT_AS"]
    (268435456, 268435456)
"""

from __future__ import annotations

import dataclasses
import math
import resource
import signal
import subprocess
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


# dash's ulimit (Debian's /bin/sh): flag and unit in bytes (or 1 for counts and seconds). Other
# shells differ (bash's -p is the pipe size), so `capabilities` verifies the result before using it.
_ULIMIT_FLAGS = {
    "RLIMIT_CPU": ("-t", 1),
    "RLIMIT_AS": ("-v", 1024),
    "RLIMIT_FSIZE": ("-f", 512),
    "RLIMIT_NOFILE": ("-n", 1),
    "RLIMIT_CORE": ("-c", 512),
    "RLIMIT_NPROC": ("-p", 1),
}


def ulimit_script(limits: Limits, *, nproc: bool = True) -> str:
    """``sh`` commands joined by ``&&`` that set every rlimit of ``limits`` in the shell, which its exec inherits.

    Soft before hard where they differ: a hard limit may not go below the soft one in force.
    ``nproc=False`` leaves RLIMIT_NPROC alone, as in :func:`prlimit_argv`.
    """
    commands = []
    for name, (soft, hard) in limits.rlimits().items():
        if name == "RLIMIT_NPROC" and not nproc:
            continue
        flag, unit = _ULIMIT_FLAGS[name]
        soft_units, hard_units = -(-soft // unit), -(-hard // unit)  # round up: never tighter than asked
        if soft_units == hard_units:
            commands.append(f"ulimit {flag} {soft_units}")
        else:
            commands += [f"ulimit -S {flag} {soft_units}", f"ulimit -H {flag} {hard_units}"]
    return " && ".join(commands)


ULIMIT_FAILED_MARKER = "rusty_hf.sandbox: could not set the rlimits with ulimit"
_PROC_LIMIT_NAMES = {
    "Max cpu time": "RLIMIT_CPU",
    "Max address space": "RLIMIT_AS",
    "Max file size": "RLIMIT_FSIZE",
    "Max open files": "RLIMIT_NOFILE",
    "Max core file size": "RLIMIT_CORE",
    "Max processes": "RLIMIT_NPROC",
}


def shell_ulimit_works(shell: str = "/bin/sh") -> bool:
    """Whether ``shell`` sets exactly the rlimits :func:`ulimit_script` asks for (checked in /proc)."""
    sample = Limits(cpu_s=7, memory_mb=300, fsize_mb=3, nofile=77, nproc=55)
    script = f"{ulimit_script(sample)} && exec cat /proc/self/limits"
    try:
        out = subprocess.run([shell, "-c", script], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    found = {}
    for line in out.stdout.splitlines():
        for label, name in _PROC_LIMIT_NAMES.items():
            if line.startswith(label + " "):
                soft, hard = line[len(label) :].split()[:2]
                found[name] = (int(soft), int(hard)) if soft.isdigit() and hard.isdigit() else None
    return out.returncode == 0 and found == sample.rlimits()


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
