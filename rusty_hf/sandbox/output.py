"""Reading a sandboxed process's stdout and stderr incrementally, with a cap, without ever blocking.

One ``selectors`` loop watches both pipes and a pidfd of the process, so it wakes for output, for
EOF and for the exit itself: a child that closes its stdout and then hangs, one that floods the
pipe, and one whose leftover children keep the pipe open after it exits are all seen as such
instead of hanging the reader. Each stream keeps at most ``cap`` bytes.

    pump = OutputPump(proc, cap=1 << 20)
    why = pump.run(deadline)       # "done", "exited", "timeout" or "output"
    ...kill what is left...
    pump.drain(time.monotonic() + 0.5); pump.close()
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time

_CHUNK = 1 << 16
_POLL_S = 0.02  # exit polling interval, only where pidfds are unavailable
_EXIT_GRACE_S = 0.05  # how long a survivor that keeps writing may delay the end of a run


class OutputPump:
    """Capped capture of ``proc.stdout``/``proc.stderr`` plus exit detection for one process."""

    def __init__(self, proc: subprocess.Popen, cap: int, streams: tuple[str, ...] = ("stdout", "stderr")) -> None:
        self.proc = proc
        self.cap = cap
        self.streams = streams  # the ones read here, and closed by close(); another reader owns the rest
        self.data = {"stdout": bytearray(), "stderr": bytearray()}
        self.truncated = {"stdout": False, "stderr": False}
        self.exited = False
        self._exit_seen = 0.0
        self._sel = selectors.DefaultSelector()
        for stream in streams:
            self._sel.register(getattr(proc, stream).fileno(), selectors.EVENT_READ, stream)
        try:
            self._pidfd: int | None = os.pidfd_open(proc.pid)
            self._sel.register(self._pidfd, selectors.EVENT_READ, "exit")
        except (AttributeError, OSError):  # pidfds need Linux >= 5.3
            self._pidfd = None

    def _pipes_open(self) -> bool:
        return any(key.data != "exit" for key in self._sel.get_map().values())

    def _read(self, key: selectors.SelectorKey) -> None:
        chunk = os.read(key.fd, _CHUNK)
        if not chunk:
            self._sel.unregister(key.fd)
            return
        buf = self.data[key.data]
        room = self.cap - len(buf)
        if len(chunk) > room:
            buf += chunk[:room]
            self.truncated[key.data] = True
        else:
            buf += chunk

    def _step(self, timeout: float) -> None:
        if self._pidfd is None:
            timeout = min(timeout, _POLL_S)
        for key, _ in self._sel.select(max(0.0, timeout)):
            if key.data == "exit":
                self._mark_exited()
                self._sel.unregister(key.fd)
            else:
                self._read(key)
        if self._pidfd is None and not self.exited and self.proc.poll() is not None:
            self._mark_exited()

    def _mark_exited(self) -> None:
        self.exited = True
        self._exit_seen = time.monotonic()

    def run(self, deadline: float) -> str:
        """Read until the process exits and its pipes close, the deadline passes, or a stream overflows.

        Returns ``"done"``, ``"exited"`` (it exited, but something it left behind holds a pipe open),
        ``"timeout"`` or ``"output"``.
        """
        while True:
            if any(self.truncated.values()):
                return "output"
            if self.exited and not self._pipes_open():
                return "done"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            if self.exited:
                # The process's own pipe ends closed before it became reapable, so anything still
                # open now belongs to a survivor; take what is already buffered, then report it.
                before = sum(len(v) for v in self.data.values())
                self._step(0)
                quiet = before == sum(len(v) for v in self.data.values())
                if self._pipes_open() and (quiet or time.monotonic() > self._exit_seen + _EXIT_GRACE_S):
                    return "exited"
                continue
            self._step(remaining)

    def drain(self, deadline: float) -> None:
        """After the kill: collect what is still buffered, until EOF on both pipes or the deadline."""
        while self._pipes_open() and not any(self.truncated.values()):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            self._step(remaining)

    def stop(self) -> None:
        """SIGKILL the process, never another one: through its pidfd where there is one (a pid
        may be recycled once the process is reaped; a pidfd cannot be). Harmless once it exited."""
        try:
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            else:
                self.proc.send_signal(signal.SIGKILL)  # checks first that it was not reaped
        except (ProcessLookupError, OSError):
            pass

    def close(self) -> None:
        self._sel.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
        for stream in self.streams:
            getattr(self.proc, stream).close()

    def text(self, stream: str) -> str:
        return self.data[stream].decode("utf-8", errors="replace")
