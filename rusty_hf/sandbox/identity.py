"""Who sandboxed code runs as: a fresh non-root uid per run when the caller is root.

Root ignores RLIMIT_NPROC and owns most of the host's files, so as root every run switches to its
own unprivileged uid/gid (no passwd entry, no supplementary groups, no capabilities), exec-ed as
the last wrapper before the command. A uid of its own per run (rather than one shared ``nobody``)
keeps RLIMIT_NPROC per run (a fork bomb in one run cannot starve its neighbours of processes) and
means no other process on the host shares it.

The switch is made by ``uidswitch.c``, compiled once (statically) into the user's cache dir by
:func:`build_uid_helper` where a C compiler is found, and exec-ed through a descriptor
(``/proc/self/fd/N``), so the sandbox needs no bind for it. It does what ``setpriv(1)`` does here,
and verifies the result, at ~0.5 ms of CPU per run instead of ~2.2 ms; ``setpriv`` remains the
fallback.

    argv = [*setpriv_argv("/usr/bin/setpriv", run_uid(), no_new_privs=True), "python3", "main.py"]
    path, why_not = build_uid_helper()
    argv = [*uid_helper_argv(helper_fd(path), run_uid(), no_new_privs=True), "python3", "main.py"]
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from pathlib import Path

# Far above any uid a distro or a container runtime hands out (subuid ranges start at 100000).
UID_BASE = 1_900_000_000
UID_SPAN = 1 << 24
_runs = itertools.count()


def run_uid() -> int:
    """A uid for one run, distinct across the runs of this process and very likely across processes."""
    return UID_BASE + (os.getpid() * 1_000_003 + next(_runs)) % UID_SPAN


def setpriv_argv(setpriv: str, uid: int, *, no_new_privs: bool) -> list[str]:
    """Drop to ``uid``/``uid`` with no groups, no capabilities (bounding and inheritable sets too)."""
    argv = [
        setpriv,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
    ]
    if no_new_privs:
        argv.append("--no-new-privs")
    return [*argv, "--"]


UID_SWITCH_FAILED_MARKER = "rusty_hf.sandbox: could not switch uid"
_HELPER_SOURCE = Path(__file__).with_name("uidswitch.c")
_helper_lock = threading.Lock()
_helper_fds: dict[tuple[int, str], int] = {}


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rusty_hf" / "sandbox"


def _private(path: Path) -> bool:
    """Owned by this user and writable by nobody else: safe for root to exec from (or to build in)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    writable_by_others = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return info.st_uid == os.geteuid() and not writable_by_others and not stat.S_ISLNK(info.st_mode)


def build_uid_helper(cc: str | None = None, cache_dir: Path | None = None) -> tuple[str | None, str | None]:
    """``(path, None)``: the compiled uid helper, built once per source version; ``(None, why)`` if none.

    The binary lives in ``$XDG_CACHE_HOME/rusty_hf/sandbox`` (default ``~/.cache``), named by the
    source's hash. It is used only if it and its dir belong to this user and nobody else may
    write them; it is linked statically where the C library allows (the cheap exec is the point).
    """
    try:
        source = _HELPER_SOURCE.read_bytes()
    except OSError as exc:
        return None, f"helper source missing ({exc})"
    directory = cache_dir or _cache_dir()
    target = directory / f"uidswitch-{hashlib.sha256(source).hexdigest()[:16]}"
    if _private(target) and _private(directory) and os.access(target, os.X_OK):
        return str(target), None
    compiler = cc or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None, "no C compiler (cc) on PATH to build the uid helper; setpriv is used"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(directory):
            return None, f"{directory} is writable by others; the uid helper is not built there"
        fd, tmp = tempfile.mkstemp(prefix=".uidswitch-", dir=directory)
        os.close(fd)
        try:
            errors = ""
            for static in (["-static"], []):
                cmd = [compiler, "-O2", *static, "-o", tmp, str(_HELPER_SOURCE)]
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
                if out.returncode == 0:
                    break
                errors = out.stderr.strip()[-300:]
            else:
                return None, f"could not compile the uid helper with {compiler}: {errors}"
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"could not build the uid helper ({exc})"
    return str(target), None


def helper_fd(path: str) -> int:
    """A descriptor of the helper binary, opened once per process (close-on-exec; the spawn passes it on)."""
    key = (os.getpid(), path)
    with _helper_lock:
        if key not in _helper_fds:
            _helper_fds[key] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        return _helper_fds[key]


def uid_helper_argv(fd: int, uid: int, *, no_new_privs: bool) -> list[str]:
    """The helper (exec-ed from the descriptor ``fd``) switching to ``uid``/``uid``, as ``setpriv_argv`` does."""
    return [f"/proc/self/fd/{fd}", str(uid), str(uid), "1" if no_new_privs else "0", "--"]
