"""Limits: validation, the rlimits they become, and reading a finished run back into a limit name."""

from __future__ import annotations

import resource
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from rusty_hf.sandbox import run_python
from rusty_hf.sandbox.capabilities import capabilities
from rusty_hf.sandbox.limits import Limits, classify_exit, prlimit_argv, shell_ulimit_works, ulimit_script


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


def _limits_seen_inside(caps) -> dict[str, tuple[int, int]]:
    """The rlimits a sandboxed process reports for itself, by resource constant name."""
    names = {name: getattr(resource, name) for name in Limits().rlimits()}
    code = "import resource\n" + "".join(f"print({n!r}, *resource.getrlimit({v}))\n" for n, v in names.items())
    with ThreadPoolExecutor(1) as worker:  # off the main thread, as the rewards run: the start gate may apply
        result = worker.submit(run_python, code, limits=WEIRD, caps=caps, site_packages=False).result()
    assert result.ok, result.stderr
    return {name: (int(soft), int(hard)) for name, soft, hard in (line.split() for line in result.stdout.splitlines())}


WEIRD = Limits(cpu_s=9, memory_mb=700, fsize_mb=5, nofile=99, nproc=33)


def test_ulimit_script_is_the_same_limits_as_prlimit():
    script = ulimit_script(WEIRD)
    assert "ulimit -S -t 9 && ulimit -H -t 10" in script and "ulimit -v 716800" in script
    assert "-p 33" in script and "-p" not in ulimit_script(WEIRD, nproc=False)
    if shell_ulimit_works():  # Debian's dash: the shell sets exactly these, as /proc reports them
        out = subprocess.run(["/bin/sh", "-c", f"{script} && cat /proc/self/limits"], capture_output=True, text=True)
        assert "Max open files            99                   99" in out.stdout
        assert "Max cpu time              9                    10" in out.stdout


def test_a_run_gets_the_same_rlimits_whichever_wrapper_sets_them():
    caps = capabilities()
    expected = WEIRD.rlimits()
    if not caps.nproc_rlimit:
        expected.pop("RLIMIT_NPROC")
    gates = (caps.without("start-gate"),) if caps.gated_start else ()
    for variant in (caps, *gates, caps.without("start-gate", "ulimit"), caps.without("start-gate", "ulimit", "prlimit")):
        seen = _limits_seen_inside(variant)
        assert {k: v for k, v in seen.items() if k in expected} == expected, variant
