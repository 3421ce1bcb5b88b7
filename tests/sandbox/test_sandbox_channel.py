"""A session with a sandboxed process: ``run(..., session=...)`` and its Channel (rusty_hf/sandbox/channel.py).

The process reads requests on its stdin and answers on its stdout; whatever it does, the host's
waits end at the run's deadline, an over-long answer ends the channel, and the run (with anything it
started) is over when the session returns.
"""

from __future__ import annotations

import sys
import time

import pytest

from attack_harness import OVERRUN_S

from rusty_hf.sandbox import Limits, run
from rusty_hf.sandbox.channel import Channel, ChannelClosed, ChannelError, ChannelOverflow, ChannelTimeout

ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line.upper())\n    sys.stdout.flush()\n"


def python(code: str) -> list[str]:
    return [sys.executable, "-S", "-c", code]


def failure(channel: Channel, request: bytes = b"ping\n") -> ChannelError:
    """The error the channel ends with for one request."""
    with pytest.raises(ChannelError) as caught:
        channel.send(request)
        channel.receive()
    return caught.value


def test_requests_and_answers_alternate_and_the_result_comes_back():
    def talk(channel: Channel) -> list[bytes]:
        answers = []
        for i in range(50):
            channel.send(b"ping %d\n" % i)
            answers.append(channel.receive())
        return answers

    result = run(python(ECHO), session=talk, timeout=10)
    assert result.session_result == [b"PING %d" % i for i in range(50)]
    assert result.stdout == "" and not result.timed_out


def test_a_process_that_never_answers_times_out_at_the_deadline():
    begun = time.monotonic()
    result = run(python("import time\ntime.sleep(60)"), session=failure, timeout=1.0)
    assert isinstance(result.session_result, ChannelTimeout) and result.timed_out
    assert time.monotonic() - begun < 1.0 + OVERRUN_S  # at the deadline, not after the program's 60 s


def test_a_process_that_stops_reading_cannot_stall_a_send():
    big = b"x" * (8 << 20) + b"\n"  # far more than a pipe holds
    result = run(python("import time\ntime.sleep(60)"), session=lambda ch: failure(ch, big), timeout=1.0)
    assert isinstance(result.session_result, ChannelTimeout)


def test_a_process_that_exits_closes_the_channel():
    result = run(python("import os\nos._exit(3)"), session=failure, timeout=5)
    assert isinstance(result.session_result, ChannelClosed) and result.returncode == 3


def test_an_answer_longer_than_the_cap_ends_the_channel():
    flood = "import sys\nsys.stdin.readline()\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    result = run(python(flood), session=failure, timeout=10)
    assert isinstance(result.session_result, ChannelOverflow)


def test_a_broken_channel_stays_broken():
    def twice(channel: Channel) -> tuple[ChannelError, ChannelError]:
        first = failure(channel)
        with pytest.raises(ChannelError) as again:
            channel.send(b"more\n")
        return first, again.value

    first, again = run(python("import os\nos._exit(0)"), session=twice, timeout=5).session_result
    assert again is first


def test_stderr_is_still_captured_and_capped():
    noisy = "import sys\nsys.stderr.write('e' * 100000)\nsys.stderr.flush()\nsys.stdin.readline()\n"
    result = run(python(noisy), session=failure, timeout=5, limits=Limits(output_bytes=1000))
    assert len(result.stderr) == 1000 and result.stderr_truncated


def test_the_run_ends_with_the_session_even_if_the_process_would_go_on():
    result = run(python("import os, time\nos.fork()\ntime.sleep(60)"), session=lambda channel: "done", timeout=30)
    assert result.session_result == "done" and not result.timed_out  # ended with the session, before the 30 s
