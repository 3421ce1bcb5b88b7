"""Limits: validation, the rlimits they become, and reading a finished run back into a limit name."""

from __future__ import annotations

import signal

import pytest

from rusty_hf.sandbox.limits import Limits, classify_exit, prlimit_argv


def test_rlimits_follow_the_limits():
    rl = Limits(cpu_s=1.5, memory_mb=64, fsize_mb=2, nofile=10, nproc=5).rlimits()
    assert rl["RLIMIT_CPU"] == (2, 3) and rl["RLIMIT_AS"] == (64 << 20, 64 << 20)
    assert rl["RLIMIT_FSIZE"] == (2 << 20, 2 << 20) and rl["RLIMIT_CORE"] == (0, 0)
    assert rl["RLIMIT_NOFILE"] == (10, 10) and rl["RLIMIT_NPROC"] == (5, 5)


def test_prlimit_can_leave_nproc_alone():
    assert any(a.startswith("--nproc=") for a in prlimit_argv("prlimit", Limits()))
    argv = prlimit_argv("prlimit", Limits(), nproc=False)
    assert argv[-1] == "--" and not any(a.startswith("--nproc=") for a in argv)


@pytest.mark.parametrize("field", ["cpu_s", "memory_mb", "nproc", "output_bytes"])
def test_non_positive_limits_are_rejected(field):
    with pytest.raises(ValueError, match=f"Limits.{field}"):
        Limits(**{field: 0})


@pytest.mark.parametrize(
    ("code", "stderr", "expected"),
    [
        (0, "MemoryError", None),
        (-signal.SIGXCPU, "", "cpu"),
        (-signal.SIGXFSZ, "", "fsize"),
        (1, "Traceback ...\nMemoryError\n", "memory"),
        (1, "OSError: [Errno 27] File too large", "fsize"),
        (1, "OSError: [Errno 24] Too many open files: '/dev/null'", "nofile"),
        (1, "BlockingIOError: [Errno 11] Resource temporarily unavailable", "nproc"),
        (1, "AssertionError", None),
    ],
)
def test_classify_exit(code, stderr, expected):
    assert classify_exit(code, stderr) == expected
