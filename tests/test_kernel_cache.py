"""Compiled-kernel builds: one folder per Python environment (venvs keep their builds), one builder at a
time, and a lock left by an interrupted build cleared with a message.

The builds here are real torch JIT builds (ninja + the C++ compiler) of a one-function C++ file, so they
take about a second; the kernel itself (`cpu_kernels.load_kernel`) goes through the same two functions.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rusty_hf.models.tiny_rwkv.kernel_cache import (
    OWNER_FILE,
    TORCH_LOCK_FILE,
    build_directory,
    environment_tag,
    is_built,
    locked_build,
)

pytestmark = pytest.mark.skipif(shutil.which(os.environ.get("CXX", "c++")) is None, reason="no C++ compiler")

SOURCE = 'extern "C" int rusty_add_one(int x) { return x + 1; }\n'
# A separate interpreter per build, as two venvs would be (torch versions extensions per process).
BUILD = textwrap.dedent("""
    import ctypes, sys
    from pathlib import Path
    from torch.utils.cpp_extension import load
    from rusty_hf.models.tiny_rwkv.kernel_cache import build_directory, locked_build
    root, prefix, source = sys.argv[1:4]
    folder = build_directory("rusty_test_ext", root, prefix=prefix)
    path = locked_build(folder, lambda d: load(name="rusty_test_ext", sources=[source], build_directory=str(d),
                                               is_python_module=False))
    assert ctypes.CDLL(path).rusty_add_one(41) == 42
    print(path)
""")


def _build_in_new_process(root: Path, prefix: str, source: Path) -> Path:
    out = subprocess.run([sys.executable, "-c", BUILD, str(root), prefix, str(source)], capture_output=True, text=True,
                         timeout=300, check=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    return Path(out.stdout.strip().splitlines()[-1])


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_each_environment_gets_its_own_folder_named_by_python_and_torch():
    import torch

    tag_a, tag_b = environment_tag("/venvs/a"), environment_tag("/venvs/b")
    assert tag_a != tag_b and tag_a == environment_tag("/venvs/a")
    assert tag_a.startswith(f"py{sys.version_info.major}{sys.version_info.minor}-torch{torch.__version__.replace('+', '_')}-")
    assert build_directory("k", "/cache", prefix="/venvs/a").parent == Path("/cache")


def test_two_environments_do_not_evict_each_others_build(tmp_path):
    source = tmp_path / "add_one.cpp"
    source.write_text(SOURCE)
    first = _build_in_new_process(tmp_path, "/venvs/a", source)
    built_at = first.stat().st_mtime_ns
    second = _build_in_new_process(tmp_path, "/venvs/b", source)
    assert first.parent != second.parent and is_built(first.parent, "rusty_test_ext") and is_built(second.parent, "rusty_test_ext")
    log_lines = len((first.parent / ".ninja_log").read_text().splitlines())
    assert _build_in_new_process(tmp_path, "/venvs/a", source) == first  # venv a again, after venv b built
    assert first.stat().st_mtime_ns == built_at  # not relinked
    assert len((first.parent / ".ninja_log").read_text().splitlines()) == log_lines  # ninja compiled nothing


def test_is_built_means_ninja_has_nothing_to_redo(tmp_path):
    source = tmp_path / "add_one.cpp"
    source.write_text(SOURCE)
    folder = _build_in_new_process(tmp_path, "/venvs/a", source).parent
    assert is_built(folder, "rusty_test_ext")
    later = time.time() + 5
    os.utime(source, (later, later))  # a newer source: the next load rebuilds, so a message is due
    assert not is_built(folder, "rusty_test_ext")


def test_a_lock_left_by_a_dead_builder_is_cleared_with_a_message(tmp_path, caplog):
    folder = tmp_path / "build"
    folder.mkdir()
    pid = _dead_pid()
    (folder / OWNER_FILE).write_text(str(pid))  # the interrupted builder's pid, as locked_build records it
    (folder / TORCH_LOCK_FILE).write_text("")  # torch's baton, left behind: torch itself would wait on it forever
    source = tmp_path / "add_one.cpp"
    source.write_text(SOURCE)
    from torch.utils.cpp_extension import load

    with caplog.at_level(logging.WARNING):
        path = locked_build(folder, lambda d: load(name="rusty_stale_ext", sources=[str(source)], build_directory=str(d),
                                                   is_python_module=False))
    assert Path(path).is_file() and not (folder / TORCH_LOCK_FILE).exists()
    assert f"cleared a stale build lock in {folder}: process {pid}, which held it, is gone" in caplog.text


def test_a_live_builder_is_waited_for_with_a_message(tmp_path, caplog):
    folder = tmp_path / "build"
    folder.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(folder / OWNER_FILE)!r}, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, str(os.getpid()).encode())
        print("locked", flush=True)
        time.sleep(1.5)
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    start = time.monotonic()
    with caplog.at_level(logging.WARNING):
        result = locked_build(folder, lambda d: time.monotonic())
    holder.wait()
    assert result - start > 1.0  # the build ran only once the holder (1.5 s) let go
    assert f"waiting for process {holder.pid}, which is compiling the CPU kernels" in caplog.text
    assert (folder / OWNER_FILE).read_text() == str(os.getpid())


def test_a_build_runs_the_environments_own_ninja(tmp_path):
    # Two ninja versions (the venv's pip one, the system's) rebuild each other's work: the build uses the venv's.
    bindir = os.path.dirname(sys.executable)
    if shutil.which("ninja", path=bindir) is None:
        pytest.skip("no ninja next to this interpreter")
    before = os.environ["PATH"]
    seen = locked_build(tmp_path / "build", lambda d: shutil.which("ninja"))
    assert seen == os.path.join(bindir, "ninja") and os.environ["PATH"] == before
