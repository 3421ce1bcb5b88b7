"""Loopback-only network namespaces kept for reuse, one per run in flight (root only).

Making a network namespace and tearing it down is the dearest single step of a sandboxed run:
~1.5 ms of CPU on the reference machines (the loopback device, per-namespace sysctl tables, and
the kernel's deferred cleanup), about 3% of a short Python test run. As root the sandbox leases a
namespace from this pool instead. The thread that spawns the run enters it for the spawn only
(``setns`` moves just the calling thread, never the rest of the process), so the wrapper chain and
everything it starts are born inside it, and bwrap is not asked for one of its own.

What a leased namespace keeps apart is what a fresh one would: the host's interfaces, ports and
abstract sockets are out of reach. A namespace serves one run at a time, so concurrent runs never
see each other either. It goes back to the pool only when it holds no socket at all (the
namespace's own counters in ``/proc/thread-self/net/sockstat``, read from inside: every socket
family, and TCP connections lingering in TIME_WAIT): a run that used the network leaves a
namespace that is closed, and the next run gets a new one. (The per-socket tables such as
``net/tcp`` would say the same, but each read walks the host's whole connection hash: ~4 ms.)
A run cannot change a namespace in any other way: that needs CAP_NET_ADMIN, which sandboxed
code never has.

    pool = pool_for_process()
    ns = pool.lease()                   # OSError where no namespace can be made
    with ns.entered():
        proc = subprocess.Popen(...)    # born in ns (and so is everything it starts)
    ...                                 # after the run is over and reaped
    pool.give_back(ns)
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import socket
import struct
import threading
from collections.abc import Iterator

logger = logging.getLogger(__name__)

CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sH22x"  # struct ifreq: the interface name, then ifr_flags at the start of a 24-byte union
_THREAD_NETNS = "/proc/thread-self/ns/net"

_libc: ctypes.CDLL | None = None


def _call(name: str, *args: int) -> None:
    """A libc namespace call (``os.setns``/``os.unshare`` arrive only in Python 3.12)."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    if getattr(_libc, name)(*args) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")


def _setns(fd: int) -> None:
    if hasattr(os, "setns"):
        os.setns(fd, CLONE_NEWNET)
    else:
        _call("setns", fd, CLONE_NEWNET)


def _unshare() -> None:
    if hasattr(os, "unshare"):
        os.unshare(CLONE_NEWNET)
    else:
        _call("unshare", CLONE_NEWNET)


def _loopback_up() -> None:
    """Bring ``lo`` up in the calling thread's network namespace (a new one starts with it down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack(_IFREQ, b"lo", 0)
        flags = struct.unpack_from(_IFREQ, fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def _sockstat(text: str) -> dict[tuple[str, str], int]:
    """``sockstat`` lines (``TCP: inuse 0 orphan 0 tw 0 ...``) as {(protocol, counter): value}."""
    counts = {}
    for line in text.splitlines():
        proto, _, rest = line.partition(":")
        fields = rest.split()
        counts.update({(proto, k): int(v) for k, v in zip(fields[::2], fields[1::2])})
    return counts


@contextlib.contextmanager
def _inside(fd: int) -> Iterator[None]:
    """Move the calling thread into the namespace ``fd`` and back home afterwards, whatever happens."""
    home = os.open(_THREAD_NETNS, os.O_RDONLY | os.O_CLOEXEC)
    try:
        _setns(fd)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(home)


class Netns:
    """One loopback-only network namespace, held open by a file descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    @classmethod
    def create(cls) -> Netns:
        """A new namespace with ``lo`` up; the calling thread is back in its own before this returns."""
        home = os.open(_THREAD_NETNS, os.O_RDONLY | os.O_CLOEXEC)
        fd = -1
        try:
            _unshare()
            try:
                fd = os.open(_THREAD_NETNS, os.O_RDONLY | os.O_CLOEXEC)
                _loopback_up()
            finally:
                _setns(home)
        except BaseException:
            if fd >= 0:
                os.close(fd)
            raise
        finally:
            os.close(home)
        return cls(fd)

    def entered(self) -> contextlib.AbstractContextManager[None]:
        """Context in which the calling thread (and what it spawns) is in this namespace."""
        return _inside(self.fd)

    def holds_sockets(self) -> bool:
        """Whether any socket, or TCP connection in TIME_WAIT, is left in this namespace (unreadable: yes)."""
        try:
            with self.entered(), open("/proc/thread-self/net/sockstat") as f:
                counts = _sockstat(f.read())
        except (OSError, ValueError):
            return True
        return counts.get(("sockets", "used"), 1) > 0 or counts.get(("TCP", "tw"), 1) > 0

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class NetnsPool:
    """Idle namespaces of this process; ``lease``/``give_back`` are thread-safe."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._idle: list[Netns] = []

    def lease(self) -> Netns:
        """An idle namespace, or a new one (OSError if none can be made)."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return Netns.create()

    def give_back(self, ns: Netns) -> None:
        """Keep ``ns`` for the next run if it holds no socket, else close it."""
        if os.getpid() == self.pid and not ns.holds_sockets():
            with self._lock:
                self._idle.append(ns)
        else:
            ns.close()

    def idle(self) -> int:
        with self._lock:
            return len(self._idle)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for ns in idle:
            ns.close()


_pool: NetnsPool | None = None
_pool_lock = threading.Lock()


def pool_for_process() -> NetnsPool:
    """This process's pool (a forked child starts a pool of its own)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool.pid != os.getpid():
            _pool = NetnsPool()
        return _pool


def netns_pool_works() -> str | None:
    """None if this host lets the process make, enter and leave a namespace; else why not."""
    try:
        ns = Netns.create()
        try:
            with ns.entered():
                pass
        finally:
            ns.close()
    except OSError as exc:
        return str(exc)
    return None


def _forget_after_fork() -> None:
    global _pool_lock
    _pool_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)
