"""keep_freed_memory: after it, a freed large block stays in the process and the next one reuses its pages."""

import subprocess
import sys
import textwrap

import pytest

from rusty_hf.training import cpu_allocator

SCRIPT = textwrap.dedent(
    """
    import importlib.util, resource, sys

    # the module alone (it needs only ctypes): importing the rusty_hf package would cost seconds
    spec = importlib.util.spec_from_file_location("cpu_allocator", sys.argv[2])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    keep_freed_memory = module.keep_freed_memory

    if sys.argv[1] == "keep":
        assert keep_freed_memory() is True
        assert keep_freed_memory() is True  # idempotent

    def minor_faults():
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20

    for _ in range(2):  # warm-up: 64 MiB allocated, touched and freed
        b"x" * (64 << 20)
    after_free = rss_mb()
    faults = []
    for _ in range(7):
        before = minor_faults()
        b"x" * (64 << 20)
        faults.append(minor_faults() - before)
    print(sorted(faults)[3], after_free)  # the median block
    """
)


def _faults_and_rss(mode: str) -> tuple[int, float]:
    argv = [sys.executable, "-c", SCRIPT, mode, cpu_allocator.__file__]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    faults, rss = out.stdout.split()
    return int(faults), float(rss)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_freed_blocks_are_reused_instead_of_refaulted():
    default_faults, default_rss = _faults_and_rss("default")
    kept_faults, kept_rss = _faults_and_rss("keep")
    pages = (64 << 20) // 4096
    # glibc's default: each 64 MiB block is a fresh mmap, so all its pages fault again on every use
    assert default_faults >= pages * 0.9
    # kept on the heap: a block reuses the pages of the one freed before it
    assert kept_faults < pages // 10, (kept_faults, default_faults)
    assert kept_rss >= default_rss + 48  # the freed warm-up block is still resident
