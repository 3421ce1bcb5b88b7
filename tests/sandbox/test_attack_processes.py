"""Attacks through processes: daemons that outlive the run, killing the caller, posix_spawn,
and many attacks at once."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from attack_harness import OVERRUN_S, assert_still_works, attack, processes_with, require_layers, wait_until_gone

from rusty_hf.sandbox import Limits, run_python

DAEMON = (
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        print('daemon', os.getpid(), flush=True)\n"
    "        time.sleep(60)\n"
    "    os._exit(0)\n"
    "time.sleep(0.2)\n"
    "print('parent exits')\n"
)


def test_daemonised_child_does_not_outlive_the_run(caps):
    # The grandchild keeps the token in its command line (fork copies it); attack() checks for it.
    require_layers("daemon", "pidns", "cgroup-kill", "cgroup-pids", "own-uid", caps=caps)
    result = attack(DAEMON, timeout=5.0, caps=caps)
    assert "daemon" in result.stdout and "parent exits" in result.stdout
    assert result.ok  # not timed out: the run ended with its main program, not with the daemon (60 s)


def test_killing_the_parent_leaves_the_caller_alive(caps):
    require_layers("kill the parent", "pidns", "own-uid", caps=caps)
    code = (
        "import os\n"
        "try:\n    os.kill(os.getppid(), 9)\n    print('sent')\n"
        "except OSError as exc:\n    print('denied', type(exc).__name__)\n"
        "print('after')\n"
    )
    result = attack(code, timeout=5.0, caps=caps)
    # Under bwrap the parent is the namespace's init, which ignores the signal; as pid 1 of an
    # `unshare` namespace the program has no parent there (getppid() == 0) and kills its own group.
    # Either way this process, the caller, is alive and attack() saw it go on working.
    assert "after" in result.stdout or result.returncode == -9


def test_posix_spawn_children_are_killed_with_the_run(caps):
    require_layers("posix_spawn", "pidns", "cgroup-kill", "cgroup-pids", "own-uid", caps=caps)
    code = (
        "import os, sys\n"
        "argv = [sys.executable, '-c', 'import time; time.sleep(60)', sys.argv[1]]\n"
        "pid = os.posix_spawn(sys.executable, argv, {}, setsid=True)\n"
        "print('spawned', pid)\n"
    )
    result = attack(code, timeout=5.0, caps=caps)
    assert result.ok and "spawned" in result.stdout


ATTACKS = {
    "loop": ("while True:\n    pass\n", Limits()),
    "fork bomb": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        Limits(nproc=16),
    ),
    "memory": ("x = []\nwhile True:\n    x.append(b'x' * (8 << 20))\n", Limits(memory_mb=128)),
    "file": ("f = open('big', 'wb')\nwhile True:\n    f.write(b'0' * (1 << 20))\n", Limits()),
    "flood": ("import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n", Limits(output_bytes=64 << 10)),
    "fds": ("fs = []\nwhile True:\n    fs.append(open('/dev/null'))\n", Limits(nofile=32)),
    "hang": ("import os, time\nos.close(1)\ntime.sleep(60)\n", Limits()),
    "daemon": (DAEMON.replace("time.sleep(0.2)", "time.sleep(60)"), Limits()),
}


def test_eight_attacks_at_once(caps):
    require_layers("concurrent attacks", "cgroup-pids", "rlimit-nproc", caps=caps)
    require_layers("concurrent attacks", "pidns", "cgroup-kill", "cgroup-pids", "own-uid", caps=caps)
    token = f"rusty-attack-many-{time.time_ns()}"
    timeout = 2.0

    def one(item):
        name, (code, limits) = item
        start = time.monotonic()
        result = run_python(code, args=[token], timeout=timeout, limits=limits, caps=caps)
        return name, result, time.monotonic() - start

    with ThreadPoolExecutor(max_workers=len(ATTACKS)) as pool:
        outcomes = list(pool.map(one, ATTACKS.items()))
    for name, result, elapsed in outcomes:
        assert not result.ok, name
        assert elapsed < timeout + OVERRUN_S, f"{name} took {elapsed:.2f}s"
    hits = {name: result.limit_hit for name, result, _ in outcomes}
    assert hits["memory"] == "memory" and hits["file"] == "fsize" and hits["flood"] == "output"
    assert hits["fds"] == "nofile" and hits["loop"] == hits["hang"] == hits["daemon"] == "timeout"
    assert wait_until_gone(token) == [], processes_with(token)
    assert_still_works(caps)
