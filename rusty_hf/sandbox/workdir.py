"""The files of a run: checking the names callers give, and the host work dir used without bubblewrap.

Under bubblewrap the work dir is an in-memory tmpfs filled by bwrap itself (see ``namespaces.py``);
without it, or when the caller reads the work dir back (``run(..., collect_files=True)``),
:func:`make_host_workdir` writes the files into a fresh ``tempfile.mkdtemp`` directory that
:func:`remove_host_workdir` deletes afterwards. :func:`host_workdir_parent` puts one that is read
back on ``/dev/shm`` where it can: tmpfs pages are charged to the run's memory cgroup, so a command
that fills its work dir meets the memory cap instead of filling the host's disk.

    files = check_files({"solution.py": "def f(): ...", "data/in.txt": b"1 2"})
    path = make_host_workdir(files, owner=None)
    ...
    remove_host_workdir(path)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath


def _inside(name: object, what: str, example: str) -> PurePosixPath:
    """``name`` as a path that stays inside the work dir; ValueError naming ``what`` it is otherwise."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise ValueError(f"sandbox {what} name must be a non-empty string, got {name!r}")
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or path.parts in ((), (".",)):
        raise ValueError(f"sandbox {what} name {name!r} must be a relative path inside the work dir "
                         f"(no leading '/', no '..'); e.g. {example}")  # fmt: skip
    return path


def check_files(files: Mapping[str, str | bytes] | None) -> dict[str, bytes]:
    """Normalised relative path -> content; ValueError for a path that could leave the work dir."""
    checked: dict[str, bytes] = {}
    for name, content in (files or {}).items():
        path = _inside(name, "file", "'solution.py' or 'data/input.txt'")
        if isinstance(content, str):
            content = content.encode("utf-8")
        if not isinstance(content, (bytes, bytearray, memoryview)):
            raise TypeError(f"sandbox file {name!r} must be str or bytes, got {type(content).__name__}")
        checked[path.as_posix()] = bytes(content)
    dirs = {parent.as_posix() for name in checked for parent in PurePosixPath(name).parents}
    clash = sorted(dirs & checked.keys())
    if clash:
        raise ValueError(f"sandbox file {clash[0]!r} is also used as a directory by another file")
    return checked


def check_dirs(dirs: Sequence[str], files: Mapping[str, bytes]) -> list[str]:
    """Normalised relative folder paths (empty folders a run starts with); ValueError as :func:`check_files`."""
    checked = []
    for name in dirs:
        path = _inside(name, "folder", "'data' or 'docs/notes'")
        if any(p.as_posix() in files for p in (path, *path.parents)):
            raise ValueError(f"sandbox folder {name!r} is (or is inside) a file")
        checked.append(path.as_posix())
    return checked


def parent_dirs(files: Mapping[str, bytes], dirs: Sequence[str] = ()) -> list[str]:
    """Every directory the files need, and ``dirs`` with theirs, parents first, relative to the work dir ('.' excluded)."""
    paths = [*(PurePosixPath(name).parent for name in files), *(PurePosixPath(d) for d in dirs)]
    found = {p.as_posix() for path in paths for p in (path, *path.parents) if p.as_posix() != "."}
    return sorted(found, key=lambda d: (d.count("/"), d))


SHM = "/dev/shm"


def host_workdir_parent(room_mb: int) -> str | None:
    """``/dev/shm`` when it is a writable directory with ``room_mb`` free, else None (the temp dir)."""
    try:
        info = os.statvfs(SHM)
    except OSError:
        return None
    free_mb = info.f_bavail * info.f_frsize >> 20
    return SHM if os.path.isdir(SHM) and os.access(SHM, os.W_OK | os.X_OK) and free_mb >= room_mb else None


def make_host_workdir(
    files: Mapping[str, bytes],
    owner: int | None,
    parent: str | None = None,
    dirs: Sequence[str] = (),
    mtimes: Mapping[str, int] | None = None,
) -> str:
    """A fresh private temp dir (in ``parent``, default the temp dir) holding ``files`` and the folders ``dirs``
    (checked by :func:`check_dirs`); owned by ``owner``. ``mtimes``: ``{relative path: ns since the epoch}``, the
    modification times files and folders get, "." the work dir's own (the others keep the time they are written at)."""
    root = tempfile.mkdtemp(prefix="rusty-sandbox-", dir=parent)
    try:
        folders = parent_dirs(files, dirs)
        for d in folders:
            os.mkdir(os.path.join(root, d))
        for name, content in files.items():
            with open(os.path.join(root, name), "wb") as f:
                f.write(content)
        # Folders last, deepest first, then the work dir itself ("."): writing into a folder sets its time.
        for name in [*files, *sorted(folders, key=lambda d: -d.count("/")), "."] if mtimes else ():
            if name in mtimes:
                os.utime(os.path.join(root, name), ns=(mtimes[name], mtimes[name]), follow_symlinks=False)
        if owner is not None:
            for dirpath, dirnames, filenames in os.walk(root):
                for entry in [dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)]:
                    os.chown(entry, owner, owner)
            # bwrap enters it as root without CAP_DAC_OVERRIDE before switching to ``owner``: others
            # may search the top (not list it); what is inside stays the owner's.
            os.chmod(root, 0o711)
    except BaseException:
        remove_host_workdir(root)
        raise
    return root


def remove_host_workdir(path: str) -> None:
    """Delete a host work dir, including whatever the run left in it (never follows symlinks out)."""

    def _retry_writable(func, target, _exc_info) -> None:  # the run may have chmod-ed things to 000
        for entry in (os.path.dirname(target), target):
            try:
                os.chmod(entry, 0o700, follow_symlinks=False)
            except OSError:
                pass
        try:
            func(target)
        except OSError:
            pass

    try:
        shutil.rmtree(path, onerror=_retry_writable)
    except RecursionError:  # a run nested directories deeper than Python's recursion limit
        subprocess.run(["rm", "-rf", "--one-file-system", "--", path], check=False, capture_output=True)
