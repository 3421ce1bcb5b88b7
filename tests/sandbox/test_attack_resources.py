"""Attacks on the machine's resources: CPU, processes, memory, disk, file descriptors, output."""

from __future__ import annotations

from attack_harness import attack, require_layers

from rusty_hf.sandbox import Limits


def test_infinite_loop_is_killed_at_the_wall_clock_timeout():
    result = attack("while True:\n    pass\n", timeout=1.0)
    assert result.timed_out and result.limit_hit == "timeout" and not result.ok


def test_busy_loop_is_stopped_by_the_cpu_limit():
    result = attack("while True:\n    pass\n", timeout=5.0, limits=Limits(cpu_s=1))
    assert not result.timed_out and result.limit_hit == "cpu"  # stopped by the limit, before the timeout


def test_fork_bomb_is_contained(caps):
    require_layers("fork bomb", "cgroup-pids", "rlimit-nproc", caps=caps)
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    result = attack(code, timeout=1.5, limits=Limits(nproc=32), caps=caps)
    assert result.timed_out and not result.ok


def test_memory_blow_up_fails_with_memory_limit():
    code = "blocks = []\nwhile True:\n    blocks.append(b'x' * (16 << 20))\n"
    result = attack(code, timeout=5.0, limits=Limits(memory_mb=256))
    assert not result.ok and not result.timed_out and result.limit_hit == "memory"


def test_memory_spread_over_processes_is_capped_by_the_cgroup(caps):
    # RLIMIT_AS is per process: four children of 150 MB each stay under it but not under the run's cgroup.
    require_layers("memory spread over processes", "cgroup-memory", caps=caps)
    code = (
        "import os, time\n"
        "for _ in range(4):\n"
        "    if os.fork() == 0:\n"
        "        data = b'x' * (150 << 20)\n"
        "        time.sleep(1)\n"
        "        os._exit(0)\n"
        "for _ in range(4):\n"
        "    os.wait()\n"
    )
    result = attack(code, timeout=4.0, limits=Limits(memory_mb=256, disk_mb=16), caps=caps)
    assert result.limit_hit == "memory"


def test_100mb_file_write_stops_at_the_file_size_limit(tmp_path):
    code = "with open('big.bin', 'wb') as f:\n    for _ in range(100):\n        f.write(b'\\0' * (1 << 20))\n"
    result = attack(code, timeout=5.0)
    assert not result.ok and result.limit_hit == "fsize"
    assert "File too large" in result.stderr


def test_fd_exhaustion_stops_at_the_nofile_limit():
    code = "files = []\nwhile True:\n    files.append(open('/dev/null'))\n"
    result = attack(code, limits=Limits(nofile=64))
    assert not result.ok and result.limit_hit == "nofile"


def test_stdout_flood_is_capped_and_marked_truncated():
    code = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    result = attack(code, timeout=5.0, limits=Limits(output_bytes=256 << 10))
    assert result.stdout_truncated and result.limit_hit == "output" and not result.ok
    assert len(result.stdout) == 256 << 10 and not result.timed_out  # ended by the cap, not by the timeout
