"""Fail closed: without bubblewrap a run is refused with one line naming the fix, unless the user opts in
(``rusty_hf/sandbox/isolation.py``). A missing bwrap is simulated with ``RUSTY_SANDBOX_DISABLE=bwrap``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rusty_hf.sandbox import IsolationMissing, require_isolation, run_python
from rusty_hf.sandbox.capabilities import DISABLE_ENV
from rusty_hf.sandbox.layers import ALLOW_ENV
from rusty_hf.errors import SetupError

# Reads a host file and writes one beside it: if either happened, the marker exists.
HOSTILE = "import pathlib, sys\nsecret = pathlib.Path(sys.argv[1]).read_text()\npathlib.Path(sys.argv[2]).write_text(secret)\n"


def _is_the_one_line(message: str) -> bool:
    return "\n" not in message and "apt-get install bubblewrap" in message and f"{ALLOW_ENV}=1" in message


def test_run_without_bwrap_is_refused_before_the_code_touches_the_host(no_bwrap, tmp_path):
    secret, marker = tmp_path / "secret.txt", tmp_path / "stolen.txt"
    secret.write_text("host secret")
    with pytest.raises(IsolationMissing) as refused:
        run_python(HOSTILE, args=[str(secret), str(marker)])
    assert _is_the_one_line(str(refused.value))
    assert not marker.exists()


def test_start_up_check_is_a_setup_error_with_the_same_line(no_bwrap):
    with pytest.raises(SetupError) as refused:
        require_isolation()
    assert _is_the_one_line(str(refused.value))


def test_explicit_capabilities_are_the_callers_choice(without_bwrap):
    assert run_python("print(1)", caps=without_bwrap).stdout == "1\n"  # tests and benchmarks measure layers


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != ALLOW_ENV}
    return subprocess.run([sys.executable, "-c", code], env={**environ, DISABLE_ENV: "bwrap", **env},
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_opt_in_runs_unisolated_and_the_log_names_the_switch(open_tmp):
    secret, marker = open_tmp / "secret.txt", open_tmp / "copy.txt"
    secret.write_text("opted in")
    code = f"from rusty_hf.sandbox import run_python\nprint(run_python({HOSTILE!r}, args={[str(secret), str(marker)]!r}).ok)"
    done = _python(code, **{ALLOW_ENV: "1"})
    assert done.stdout.strip() == "True" and marker.read_text() == "opted in"  # unisolated, as asked
    notices = [line for line in done.stderr.splitlines() if f"{ALLOW_ENV}=1" in line]
    assert len(notices) == 1 and "WITHOUT filesystem isolation" in notices[0]


def test_an_entry_point_refusing_at_start_up_prints_the_one_line_and_nothing_else():
    code = "from rusty_hf.sandbox import require_isolation\nfrom rusty_hf.errors import run_cli\n" \
           "raise SystemExit(run_cli('recipe.py', require_isolation))"
    done = _python(code)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert _is_the_one_line(done.stderr.strip()) and done.stderr.startswith("recipe.py: ")


def test_the_command_line_check_stops_with_the_line_and_status_2():
    done = _python("from rusty_hf.sandbox.__main__ import main; raise SystemExit(main([]))")
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and _is_the_one_line(done.stderr.strip())
