"""Attacks on the plumbing between caller and program: stdout closed early, stdin reads."""

from __future__ import annotations

from attack_harness import attack


def test_close_stdout_then_hang_still_returns_at_the_timeout():
    code = "import os, time\nprint('bye', flush=True)\nos.close(1)\nos.close(2)\ntime.sleep(60)\n"
    result = attack(code, timeout=1.0)
    assert result.timed_out and result.stdout == "bye\n"


def test_stdin_read_gets_eof_instead_of_blocking():
    code = "import sys\ndata = sys.stdin.read()\nprint(repr(data))\ninput()\n"
    result = attack(code, timeout=5.0)
    assert not result.timed_out and result.stdout == "''\n"
    assert "EOFError" in result.stderr
