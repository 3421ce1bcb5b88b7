"""A run's rlimits without a wrapper exec: bwrap holds the sandbox at its start until the parent set them.

bwrap is given ``--info-fd`` (it reports the pid of the process that becomes the sandbox's first
process) and ``--block-fd`` (that process then waits, its mounts done and nothing of the run
started yet, until a byte arrives). In between, the parent sets the run's rlimits on that process
with ``prlimit(2)``, and everything the run starts inherits them. This takes the place of the
``/bin/sh`` that otherwise sets them with ``ulimit`` (one exec, ~1.3 ms of CPU a run here); the
run's cgroups are joined at the spawn instead (``RunCgroups.joined_by_this_thread``).

Fail-closed: the sandbox's first process holds a copy of the block pipe's write end itself, so it
never reads end-of-file there. If the parent dies before releasing it, it waits for good instead
of going on without limits (it is in the run's cgroups, which the next process to make a pool
removes as a dead owner's); if setting a limit fails, the parent kills the run instead.

    gate = StartGate(limits, nproc=True)
    argv = [bwrap, *gate.bwrap_args, ...]      # pass_fds=gate.child_fds
    proc = Popen(argv, ...)
    gate.release(deadline)                      # the run starts now, under its rlimits
    gate.close()
"""

from __future__ import annotations

import json
import os
import resource
import select
import time

from rusty_hf.sandbox.limits import Limits


class StartGate:
    """The pipes of one gated start and the rlimits to set through it."""

    def __init__(self, limits: Limits, *, nproc: bool) -> None:
        self.rlimits = [
            (getattr(resource, name), value)
            for name, value in limits.rlimits().items()
            if nproc or name != "RLIMIT_NPROC"
        ]
        self._info_r, info_w = os.pipe()
        block_r, self._block_w = os.pipe()
        # The child's ends, closed here once the spawn has copied them; the last is the fail-closed hold.
        self.child_fds = [info_w, block_r, os.dup(self._block_w)]
        self.bwrap_args = ["--info-fd", str(info_w), "--block-fd", str(block_r)]

    def release(self, deadline: float) -> int | None:
        """Set the rlimits on the sandbox's first process, then let it go on; returns its pid.

        None when bwrap ended before making the sandbox: its own error is the run's stderr.
        Raises OSError when a limit cannot be set (the caller kills the run) and TimeoutError when
        bwrap does not report by ``deadline``.
        """
        data = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self._info_r], [], [], remaining)[0]:
                raise TimeoutError("bwrap did not report its sandbox process in time")
            chunk = os.read(self._info_r, 4096)
            if not chunk:
                break  # end of file: bwrap wrote its report (or exited)
            data += chunk
        if not data:
            return None
        pid = int(json.loads(data)["child-pid"])
        try:
            for which, value in self.rlimits:
                resource.prlimit(pid, which, value)
        except ProcessLookupError:
            return None  # bwrap's setup failed after all; it reports why
        os.write(self._block_w, b"1")
        return pid

    def close(self) -> None:
        for fd in (self._info_r, self._block_w):
            try:
                os.close(fd)
            except OSError:
                pass
