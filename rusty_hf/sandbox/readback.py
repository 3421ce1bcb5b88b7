"""Reading a finished run's work dir back on the host, trusting nothing the run left there.

``run(..., collect_files=True)`` gives the run a work dir the host owns (see ``runner.py``); once
every process of the run is dead, :func:`read_back` walks it with directory file descriptors and
returns its regular files. The run chose every name and every file type in there, so:

- nothing is followed: symlinks, FIFOs, sockets and devices are skipped (open with ``O_NOFOLLOW`` and
  ``O_NONBLOCK``, then checked with ``fstat``), each directory is entered by a descriptor opened
  relative to its parent's, never by a path;
- names that are not UTF-8 are skipped (nothing on the host could be told about them);
- the walk is iterative, with caps on depth, entries and bytes: a run that exceeds one gets ``None``
  and a reason instead of a partial picture (a partial picture would look like deletions).

    files, problem = read_back("/dev/shm/rusty-sandbox-abc", skip_dirs={".git"}, max_bytes=64 << 20)
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass

MAX_DEPTH = 64  # nesting below the work dir; deeper trees are a run's doing, not a project's
MAX_ENTRIES = 50_000  # names looked at, files and directories together


@dataclass
class _Budget:
    max_bytes: int
    max_entries: int
    bytes_left: int = 0
    entries_left: int = 0

    def __post_init__(self) -> None:
        self.bytes_left, self.entries_left = self.max_bytes, self.max_entries


class _TooBig(Exception):
    pass


def read_back(
    root: str,
    *,
    skip_dirs: Collection[str] = (),
    max_bytes: int,
    max_entries: int = MAX_ENTRIES,
    max_depth: int = MAX_DEPTH,
    folders: set[str] | None = None,
) -> tuple[dict[str, bytes] | None, str | None]:
    """The regular files under ``root`` as ``{relative/posix/path: bytes}``, or ``(None, why)``.

    Args:
        root: the work dir (its own path is trusted: the host made it).
        skip_dirs: directory names not entered at any depth (compared case-insensitively).
        max_bytes: the most file content read in all.
        max_entries: the most names looked at.
        max_depth: the deepest directory entered.
        folders: a set to add every directory entered to (relative paths, empty folders too).
    """
    skip = {name.casefold() for name in skip_dirs}
    budget = _Budget(max_bytes, max_entries)
    files: dict[str, bytes] = {}
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    stack: list[tuple[int, str, int]] = [(top, "", 0)]
    try:
        while stack:
            fd, prefix, depth = stack.pop()
            try:
                _read_dir(fd, prefix, depth, skip, budget, files, stack, max_depth, folders)
            finally:
                os.close(fd)
    except _TooBig as exc:
        return None, str(exc)
    finally:
        for fd, _, _ in stack:
            os.close(fd)
    return files, None


def _read_dir(fd, prefix, depth, skip, budget, files, stack, max_depth, folders) -> None:
    with os.scandir(fd) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        budget.entries_left -= 1
        if budget.entries_left < 0:
            raise _TooBig(f"the work dir holds more than {budget.max_entries} files and directories")
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            continue
        try:
            info = os.lstat(name, dir_fd=fd)
        except OSError:
            continue
        rel = prefix + name
        if stat.S_ISDIR(info.st_mode):
            if name.casefold() in skip:
                continue
            if depth + 1 > max_depth:
                raise _TooBig(f"the work dir nests directories deeper than {max_depth} levels")
            try:
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError:
                continue
            stack.append((child, rel + "/", depth + 1))
            if folders is not None:
                folders.add(rel)
        elif stat.S_ISREG(info.st_mode):
            data = _read_file(fd, name, budget)
            if data is not None:
                files[rel] = data


def _read_file(dir_fd: int, name: str, budget: _Budget) -> bytes | None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped after the lstat: not by a dead run, but cheap
            return None
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > budget.bytes_left:
                raise _TooBig(f"the work dir holds more than its size limit, {budget.max_bytes >> 20} MB")
            chunks.append(chunk)
        budget.bytes_left -= total
        return b"".join(chunks)
    finally:
        os.close(fd)
