"""A line-framed request/response channel between the host and one sandboxed process.

``run(argv, ..., session=talk)`` gives the sandboxed process pipes as its stdin (requests) and stdout
(answers) instead of /dev/null and the captured stream: the two descriptors every wrapper of the chain
keeps (the uid switch closes all others). It calls ``talk(channel)`` in the calling thread while the
process lives; the run ends (everything killed) when ``talk`` returns, and its return value is
``SandboxResult.session_result``; stderr is captured as in any run, ``SandboxResult.stdout`` is empty:

    def talk(channel: Channel) -> bytes:
        channel.send(b"ping\\n")
        return channel.receive()              # one line, without its newline
    result = run([sys.executable, "-c", SERVER], session=talk, timeout=5)

The host trusts nothing that arrives here: every wait ends at the run's deadline
(:class:`ChannelTimeout`), a message longer than ``max_message`` bytes ends the channel
(:class:`ChannelOverflow`), and a process that exits or closes its end gives :class:`ChannelClosed`.
Both ends are non-blocking on the host's side, so a process that stops reading cannot stall a send
either. After any of these errors the channel stays broken: every later call raises again.
:func:`converse` is how the runner runs a session: stderr is pumped by a helper thread meanwhile.
"""

from __future__ import annotations

import os
import selectors
import threading
import time
from collections.abc import Callable
from typing import IO

from rusty_hf.sandbox.output import OutputPump

DEFAULT_MAX_MESSAGE = 8 << 20
_CHUNK = 1 << 16


class ChannelError(Exception):
    """The channel cannot carry another message; ``str()`` says why."""


class ChannelClosed(ChannelError):
    """The sandboxed process exited or closed its end."""


class ChannelTimeout(ChannelError):
    """The run's deadline passed while waiting on the process."""


class ChannelOverflow(ChannelError):
    """The process sent a message longer than the channel's cap."""


class Channel:
    """The host's ends of the two pipes: ``send`` writes requests, ``receive`` reads one line back."""

    def __init__(self, to_child: IO[bytes], from_child: IO[bytes], deadline: float,
                 max_message: int = DEFAULT_MAX_MESSAGE) -> None:  # fmt: skip
        self.deadline = deadline
        self.max_message = max_message
        self.broken: ChannelError | None = None
        self._files = (to_child, from_child)  # owned: closed by close()
        self._to, self._from = to_child.fileno(), from_child.fileno()
        os.set_blocking(self._to, False)
        os.set_blocking(self._from, False)
        self._buffer = bytearray()
        self._scanned = 0  # bytes of the buffer already known to hold no newline
        self._sel = selectors.DefaultSelector()

    def _fail(self, error: ChannelError) -> ChannelError:
        self.broken = error
        return error

    def _wait(self, fd: int, event: int) -> None:
        if self.broken is not None:
            raise self.broken
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise self._fail(ChannelTimeout("the run's deadline passed"))
        key = self._sel.register(fd, event)
        try:
            ready = self._sel.select(remaining)
        finally:
            self._sel.unregister(key.fd)
        if not ready and time.monotonic() >= self.deadline:
            raise self._fail(ChannelTimeout("the run's deadline passed"))

    def send(self, data: bytes) -> None:
        """Write all of ``data``, waiting for room in the pipe at most until the deadline."""
        view = memoryview(data)
        while view:
            if self.broken is not None:
                raise self.broken
            try:
                view = view[os.write(self._to, view) :]
            except BlockingIOError:
                self._wait(self._to, selectors.EVENT_WRITE)
            except (BrokenPipeError, ConnectionResetError):
                raise self._fail(ChannelClosed("the process closed its end of the channel")) from None

    def receive(self) -> bytes:
        """The next line the process wrote, without its newline."""
        while True:
            if self.broken is not None:
                raise self.broken
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            if len(self._buffer) > self.max_message:
                raise self._fail(ChannelOverflow(f"a message longer than {self.max_message} bytes"))
            try:
                chunk = os.read(self._from, _CHUNK)
            except BlockingIOError:
                self._wait(self._from, selectors.EVENT_READ)
                continue
            if not chunk:
                raise self._fail(ChannelClosed("the process closed the channel (it exited or was killed)"))
            self._buffer += chunk

    def close(self) -> None:
        """Close the host's ends (idempotent); later calls raise ChannelClosed."""
        if self.broken is None:
            self.broken = ChannelClosed("the channel was closed by the host")
        self._sel.close()
        for file in self._files:
            try:
                file.close()
            except OSError:  # a pipe the process stopped reading: nothing left to flush anyway
                pass


def converse(pump: OutputPump, channel: Channel, session: Callable[[Channel], object], deadline: float) -> tuple[str, object]:
    """Run ``session`` here while a helper thread pumps the output; returns (why the run ended, its result).

    The pump stops the process itself (through its pidfd, which cannot hit a recycled pid) when the
    output overflows or the deadline passes, so a session waiting on the channel sees it close.
    """
    outcome: dict[str, str] = {}

    def pump_output() -> None:
        why = outcome["why"] = pump.run(deadline)
        if why in ("output", "timeout"):
            pump.stop()

    pumping = threading.Thread(target=pump_output, name="sandbox-output", daemon=True)
    pumping.start()
    try:
        result = session(channel)
    finally:
        channel.close()
        pump.stop()  # the session is over, whatever the process is doing
        pumping.join()
    why = outcome.get("why", "done")
    if why not in ("output", "timeout") and isinstance(channel.broken, ChannelTimeout):
        why = "timeout"
    return why, result
