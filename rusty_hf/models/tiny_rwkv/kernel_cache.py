"""Where TinyRWKV's compiled CPU kernels are built and kept: one folder per Python environment, one builder at a time.

    from .kernel_cache import build_directory, is_built, locked_build
    folder = build_directory("rusty_cpu_kernels_abc123")          # ~/.cache/rusty_hf/kernels/<name>-py311-torch...
    module = locked_build(folder, lambda d: load_inline(..., build_directory=str(d)))

Why not torch's default cache (``~/.cache/torch_extensions/py311_cpu/<name>``): every virtual environment
of a user shares it, while the ninja file written there names one environment's torch headers and
libraries, so two venvs on one machine rebuild the kernel in turn, each build 30-60 s. Here the folder is
keyed by the interpreter's environment (``sys.prefix``) and the torch build (version, git revision, install
path): each venv builds once and keeps its build. ``RUSTY_KERNEL_CACHE`` moves the root.

Why a lock of our own: torch marks a build in progress with a ``lock`` file and makes every other
process sleep until it disappears; a build killed half-way leaves it behind and later runs wait forever,
silently. Builders here first take an ``flock`` on ``owner.pid`` (the kernel drops it when its holder
dies, however it dies) and write their pid into it. Whoever holds that lock and still finds torch's
``lock`` knows its owner is gone: it says so, naming the pid, and clears it. Waiting for a live builder
is announced too.

Why the environment's own ninja: torch runs whichever ``ninja`` comes first on PATH, and two ninja
versions (pip's, in the venv's bin, and the system's) disagree about each other's build logs, so a
venv used both activated and not rebuilt on every switch (seen here: 1.13 and 1.11, 38 s each time).
A build puts the interpreter's bin directory first on PATH when a ``ninja`` is there (``pip install
ninja``, a dependency of rusty_hf). Imports only the standard library (this folder ships as Hub remote code).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

try:
    import fcntl
except ImportError:  # Windows: no flock; builds there are not serialised across processes
    fcntl = None

logger = logging.getLogger(__name__)
T = TypeVar("T")
OWNER_FILE = "owner.pid"
TORCH_LOCK_FILE = "lock"  # torch.utils.cpp_extension's FileBaton in the build directory


def cache_root() -> Path:
    """``$RUSTY_KERNEL_CACHE``, else ``$XDG_CACHE_HOME/rusty_hf/kernels``, else ``~/.cache/rusty_hf/kernels``."""
    if os.environ.get("RUSTY_KERNEL_CACHE"):
        return Path(os.environ["RUSTY_KERNEL_CACHE"]).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rusty_hf" / "kernels"


def environment_tag(prefix: str | None = None) -> str:
    """A readable, unique name for this interpreter environment and torch build: py311-torch2.13.0_cpu-<hash>."""
    import torch

    prefix = os.path.realpath(prefix or sys.prefix)
    identity = "\0".join([prefix, sys.version, torch.__version__, str(torch.version.git_version),
                          os.path.realpath(os.path.dirname(torch.__file__))])
    digest = hashlib.sha256(identity.encode()).hexdigest()[:10]
    version = torch.__version__.replace("+", "_")
    return f"py{sys.version_info.major}{sys.version_info.minor}-torch{version}-{digest}"


def build_directory(name: str, root: str | os.PathLike | None = None, prefix: str | None = None) -> Path:
    """The folder extension ``name`` is built in for this environment (``prefix`` defaults to ``sys.prefix``)."""
    return Path(root or cache_root()) / f"{name}-{environment_tag(prefix)}"


def is_built(folder: str | os.PathLike, name: str) -> bool:
    """Whether ``folder`` holds an up-to-date build of extension ``name``: its shared library, and ninja
    (the environment's, see `environment_tools_first`) has nothing to redo there."""
    folder = Path(folder)
    if not ((folder / f"{name}.so").is_file() or (folder / f"{name}.pyd").is_file()):
        return False
    with environment_tools_first():
        ninja = shutil.which("ninja")
    if ninja is None or not (folder / "build.ninja").is_file():
        return ninja is None  # no ninja: torch cannot rebuild it either, it only loads the library
    dry_run = subprocess.run([ninja, "-n", "-C", str(folder)], capture_output=True, text=True, timeout=60, check=False)
    return dry_run.returncode == 0 and "no work to do" in dry_run.stdout


def _read_pid(fd: int) -> int | None:
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 32).decode(errors="replace").strip()
    return int(text) if text.isdigit() else None


def _write_pid(fd: int) -> None:
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, str(os.getpid()).encode())


@contextlib.contextmanager
def environment_tools_first() -> Iterator[None]:
    """PATH with this interpreter's bin directory first while the block runs, when a ``ninja`` is there."""
    bindir = os.path.dirname(sys.executable)
    path = os.environ.get("PATH", "")
    if shutil.which("ninja", path=bindir) is None:
        yield
        return
    os.environ["PATH"] = bindir + os.pathsep + path
    try:
        yield
    finally:
        os.environ["PATH"] = path


def locked_build(folder: str | os.PathLike, build: Callable[[Path], T]) -> T:
    """Run ``build(folder)`` holding the folder's build lock; clear a lock an interrupted build left.

    Waiting for another live builder and clearing a stale lock are both logged (warnings).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / OWNER_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                logger.warning("rusty_hf: waiting for process %s, which is compiling the CPU kernels in %s",
                               _read_pid(fd) or "?", folder)
                fcntl.flock(fd, fcntl.LOCK_EX)
        previous = _read_pid(fd)
        _write_pid(fd)
        stale = folder / TORCH_LOCK_FILE
        if fcntl is not None and stale.exists():
            logger.warning("rusty_hf: cleared a stale build lock in %s: process %s, which held it, is gone "
                           "(an interrupted build); compiling again", folder, previous or "?")
            stale.unlink(missing_ok=True)
        with environment_tools_first():
            return build(folder)
    finally:
        os.close(fd)  # drops the flock


__all__ = ["build_directory", "cache_root", "environment_tag", "environment_tools_first", "is_built", "locked_build"]
