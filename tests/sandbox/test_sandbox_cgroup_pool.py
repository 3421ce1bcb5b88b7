"""The pool of reusable per-run cgroups: nothing of one run reaches the next, threads get their own
sets, and no set outlives its process (at exit, or at the next process's start after a crash)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from attack_harness import leftover_cgroups, processes_with, require_layers, wait_until_gone

import rusty_hf
from rusty_hf.sandbox import Limits, capabilities, run_python
from rusty_hf.sandbox.cgroup_pool import clean_stale, pool_for

# Prints the pids of every cgroup of this process that belongs to a pool set. Without bwrap the
# host's /sys is visible, and the chain sh -> prlimit -> python is one process (each one execs).
OWN_CGROUP_PIDS = (
    "import os\n"
    "mounts = {}\n"
    "for line in open('/proc/self/mountinfo'):\n"
    "    left, _, right = line.partition(' - ')\n"
    "    if right.split()[0] in ('cgroup', 'cgroup2'):\n"
    "        opts = set(right.split()[2].split(',')) if right.split()[0] == 'cgroup' else {''}\n"
    "        for o in opts:\n"
    "            mounts[o] = left.split()[4]\n"
    "seen = set()\n"
    "for line in open('/proc/self/cgroup'):\n"
    "    _, ctrls, path = line.rstrip('\\n').split(':', 2)\n"
    "    if 'rusty-sandbox-pool' in path:\n"
    "        for c in (ctrls.split(',') if ctrls else ['']):\n"
    "            if c in mounts:\n"
    "                seen.update(open(mounts[c] + path + '/cgroup.procs').read().split())\n"
    "print(os.getpid(), sorted(seen))\n"
)


@pytest.fixture
def cgroup_only():
    """Layers without namespaces or a uid switch: only the run's cgroups hold its processes."""
    caps = capabilities().without("bwrap", "unshare", "uid")
    require_layers("cgroup pool", "cgroup-pids", "cgroup-kill", caps=caps)
    return caps


def _own_pids(result) -> tuple[str, list[str]]:
    assert result.ok, result.stderr
    pid, _, listed = result.stdout.strip().partition(" ")
    return pid, ast.literal_eval(listed)  # a list printed by OWN_CGROUP_PIDS


def test_a_runs_daemon_never_reaches_the_next_runs_cgroup(cgroup_only):
    token = f"rusty-pool-daemon-{os.getpid()}"
    daemon = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nprint('left')\n"
    assert run_python(daemon, args=[token], caps=cgroup_only).ok
    assert wait_until_gone(token) == [], processes_with(token)
    pid, listed = _own_pids(run_python(OWN_CGROUP_PIDS, caps=cgroup_only))
    assert listed == [pid]  # the next run's set holds the next run alone
    assert leftover_cgroups() == []


def test_a_fork_bomb_does_not_affect_the_next_run():
    require_layers("fork bomb", "cgroup-pids", caps=capabilities())
    bomb = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    assert run_python(bomb, timeout=1.0, limits=Limits(nproc=16)).timed_out
    forks = (  # 8 children alive at once: 11 pids with the wrappers, under the cap of 16 + 2
        "import os, time\npids = []\nfor _ in range(8):\n    pid = os.fork()\n"
        "    if pid == 0:\n        time.sleep(0.2)\n        os._exit(0)\n    pids.append(pid)\n"
        "for p in pids:\n    os.waitpid(p, 0)\nprint('forked 8')\n"
    )
    result = run_python(forks, limits=Limits(nproc=16))
    assert result.ok and result.stdout == "forked 8\n" and result.limit_hit is None, result


def test_memory_limit_hit_is_reported_for_its_run_only():
    require_layers("memory spread over processes", "cgroup-memory", caps=capabilities())
    limits = Limits(memory_mb=256, disk_mb=16)  # 4 x 150 MB stays under RLIMIT_AS, not under the cgroup
    hog = (
        "import os, time\nfor _ in range(4):\n    if os.fork() == 0:\n"
        "        data = b'x' * (150 << 20)\n        time.sleep(1)\n        os._exit(0)\n"
        "for _ in range(4):\n    os.wait()\n"
    )
    assert run_python(hog, timeout=4.0, limits=limits).limit_hit == "memory"
    after = run_python("data = b'x' * (64 << 20)\nprint(len(data))", limits=limits)
    assert after.ok and after.limit_hit is None, after


def test_concurrent_runs_each_get_a_set_of_their_own(cgroup_only):
    code = "import time\ntime.sleep(0.1)\n" + OWN_CGROUP_PIDS
    before = len(pool_for(cgroup_only.cgroups).idle())  # earlier tests may have grown the pool
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(lambda _: run_python(code, caps=cgroup_only), range(12)))
    for result in results:
        pid, listed = _own_pids(result)
        assert listed == [pid]  # no other run shared its cgroups
    sets = pool_for(cgroup_only.cgroups).idle()
    assert 1 <= len(sets) <= max(before, 6) and all(not s.procs() for s in sets)  # grows to peak concurrency
    assert leftover_cgroups() == []


def _child(script: str) -> list[str]:
    """Run ``script`` in a fresh interpreter with rusty_hf.sandbox importable (torch skipped)."""
    package_dir = rusty_hf.__path__[0]
    prelude = (
        "import sys, types\n"
        f"pkg = types.ModuleType('rusty_hf'); pkg.__path__ = [{package_dir!r}]; sys.modules['rusty_hf'] = pkg\n"
        "from rusty_hf.sandbox import capabilities, run_python\n"
        "from rusty_hf.sandbox.cgroup_pool import pool_for\n"
        "assert run_python('print(1)').ok\n"
        "pool = pool_for(capabilities().cgroups)\n"
        "print(pool.prefix, *pool.parents, flush=True)\n"
    )
    argv = [sys.executable, "-c", prelude + script]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def _sets_named(prefix: str, parents: list[str]) -> list[str]:
    return [os.path.join(p, n) for p in parents if os.path.isdir(p) for n in os.listdir(p) if n.startswith(prefix)]


def test_pool_is_removed_at_interpreter_exit():
    require_layers("cgroup pool", "cgroup-pids", "cgroup-memory", "cgroup-kill")
    prefix, *parents = _child("")
    assert _sets_named(prefix, parents) == []


def test_sets_of_a_crashed_process_are_removed_by_the_next_one():
    require_layers("cgroup pool", "cgroup-pids", "cgroup-memory", "cgroup-kill")
    prefix, *parents = _child("import os\nos._exit(0)\n")  # no atexit: the sets stay behind
    left = _sets_named(prefix, parents)
    assert left, "the crashed process should have left its pool sets"
    removed = clean_stale(set(parents))
    assert set(left) <= set(removed) and _sets_named(prefix, parents) == []
