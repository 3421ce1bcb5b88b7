"""Leased network namespaces: never the caller's, never two runs' at once, never reused after a socket."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from attack_harness import require_mechanism

from rusty_hf.sandbox import SandboxError, run
from rusty_hf.sandbox import launch as sandbox_launch
from rusty_hf.sandbox.netns_pool import Netns, pool_for_process

SHOW_NETNS = ["/bin/sh", "-c", "readlink /proc/self/ns/net"]

# Both ends close cleanly, the server's first: its side of the connection stays in TIME_WAIT.
TIME_WAIT = (
    "import socket\n"
    "srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen()\n"
    "c = socket.create_connection(srv.getsockname()); conn, _ = srv.accept()\n"
    "conn.sendall(b'x'); conn.close(); c.recv(1); c.close(); srv.close()\n"
    "print('talked over loopback')\n"
)


@pytest.fixture
def pooled():
    return require_mechanism("netns_pool", "leased network namespaces")


def _thread_netns() -> str:
    return os.readlink("/proc/thread-self/ns/net")


def _run_netns(caps, argv=SHOW_NETNS) -> str:
    result = run(argv, caps=caps, timeout=10)
    assert result.ok, result.stderr
    return result.stdout.strip()


def test_a_run_is_outside_the_callers_namespace_and_clean_ones_are_reused(pooled):
    home = _thread_netns()
    first, second = _run_netns(pooled), _run_netns(pooled)
    assert first.startswith("net:[") and first != home
    assert second == first  # nothing was left in it, so the next run leased it again
    assert _thread_netns() == home


def test_concurrent_runs_never_share_a_namespace(pooled):
    start = threading.Barrier(4)

    def one(_):
        start.wait()  # all four in flight together
        return _run_netns(pooled, ["/bin/sh", "-c", "readlink /proc/self/ns/net; sleep 0.3"])

    with ThreadPoolExecutor(4) as workers:
        seen = list(workers.map(one, range(4)))
    assert len(set(seen)) == 4, seen


def test_a_namespace_that_held_a_socket_is_never_reused(pooled):
    before = _run_netns(pooled)
    result = run(["python3", "-c", f"import os; print(os.readlink('/proc/self/ns/net'))\n{TIME_WAIT}"], caps=pooled)
    assert result.ok and "talked over loopback" in result.stdout, result.stderr  # loopback is up inside
    used = result.stdout.split()[0]
    assert used == before
    assert _run_netns(pooled) != used


def test_the_spawning_thread_comes_home_when_the_spawn_fails(pooled, monkeypatch):
    home, pool = _thread_netns(), pool_for_process()

    def refuse(*args, **kwargs):
        assert _thread_netns() != home  # the spawn happens inside the leased namespace
        raise OSError("no spawn today")

    monkeypatch.setattr(sandbox_launch.subprocess, "Popen", refuse)
    idle = pool.idle()
    with pytest.raises(SandboxError, match="no spawn today"):
        run(["/bin/true"], caps=pooled)
    assert _thread_netns() == home
    assert pool.idle() == max(idle, 1)  # the lease went back


def test_holds_sockets_sees_any_socket_of_the_namespace(pooled):
    home, ns = _thread_netns(), Netns.create()
    try:
        assert not ns.holds_sockets()
        with ns.entered():
            listener = socket.socket()
            listener.bind(("127.0.0.1", 0))
            listener.listen()
        assert _thread_netns() == home
        assert ns.holds_sockets()
        listener.close()
        assert not ns.holds_sockets()
        with ns.entered():
            left, right = socket.socketpair()
        assert ns.holds_sockets()
        left.close(), right.close()
    finally:
        ns.close()


def test_without_the_pool_each_run_makes_its_own(pooled):
    fresh = pooled.without("netns-pool")
    assert "netns" in fresh.layers()
    seen = {_run_netns(fresh) for _ in range(2)}
    assert len(seen) == 2


def test_the_host_network_stays_the_callers_with_network_true(pooled):
    result = run(SHOW_NETNS, caps=pooled, network=True)
    assert result.ok and result.stdout.strip() == subprocess.check_output(SHOW_NETNS, text=True).strip()
