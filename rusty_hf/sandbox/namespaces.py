"""Namespace wrappers: the ``bwrap`` command line (and an ``unshare`` fallback) for one run.

Under bubblewrap the run sees a filesystem made only of read-only binds (``/usr``, the ``/bin``
and ``/lib*`` links, this Python's prefix, a few ``/etc`` files the loader and linkers need, and
the caller's ``ro_paths``), a fresh ``/proc`` and minimal ``/dev``, a private size-capped ``/tmp``,
and a size-capped in-memory work dir at :data:`WORKDIR` holding the run's files (copied in by
bwrap from memfds) -- the only writable place. It gets its own network (loopback only), pid, ipc,
uts and cgroup namespaces, loses every capability, and dies with its parent.

    argv, fds = bwrap_argv("/usr/bin/bwrap", files={"main.py": b"print(1)"}, ro_paths=(),
                           network=False, disk_mb=64, as_root=True)
    # Popen([*argv, *command], pass_fds=fds); then close_fds(fds)
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Mapping, Sequence

from rusty_hf.sandbox.workdir import parent_dirs

WORKDIR = "/sandbox"  # the run's cwd and HOME under bubblewrap
_LIB_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The dynamic loader's cache, and the links by which rustc finds cc (and a shell finds awk...); nothing
# secret. ld.so.conf is left out: only ldconfig reads it, and each bind costs bwrap a mountinfo parse.
_ETC_FILES = ("/etc/ld.so.cache", "/etc/alternatives")
# /dev: the device nodes programs use (binds: bwrap cannot mknod), the /proc/self/fd links, and a
# size-capped /dev/shm for POSIX semaphores and shared memory. bwrap's own --dev adds /dev/full,
# /dev/tty and a devpts instance; each device bind costs it a mount, a remount and a mountinfo parse,
# and this set measured ~0.9 ms of CPU a run less (~2%). No pseudo-terminals in the sandbox, then.
_DEV_NODES = ("null", "zero", "random", "urandom")
_DEV_LINKS = (("/proc/self/fd", "fd"), ("/proc/self/fd/0", "stdin"), ("/proc/self/fd/1", "stdout"), ("/proc/self/fd/2", "stderr"))
_ETC_NETWORK = ("/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/ssl", "/etc/ca-certificates")


_USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
NOBODY = 65534  # the overflow uid and gid: what a user namespace shows for ids it does not map


def check_user(name: str | None) -> str | None:
    """A name ``/etc/passwd`` may hold (lowercase, as ``useradd`` takes them), or ValueError."""
    if name is not None and (not isinstance(name, str) or not _USER_NAME.fullmatch(name) or name in ("root", "nobody")):
        raise ValueError(f"user must be a lowercase login name other than root and nobody, like 'sandbox'; got {name!r}")
    return name


def account_files(name: str, uid: int) -> dict[str, bytes]:
    """``/etc/passwd`` and ``/etc/group`` for a run whose uid and gid are ``uid``: root, ``name`` and nobody only."""
    own = [(name, uid, WORKDIR)] if uid not in (0, NOBODY) else []  # a run as root (or nobody) is that account
    users = [("root", 0, "/root"), *own, ("nobody", NOBODY, "/nonexistent")]
    passwd = "".join(f"{who}:x:{n}:{n}:{who}:{home}:/bin/sh\n" for who, n, home in users)
    group = "".join(f"{'nogroup' if n == NOBODY else who}:x:{n}:\n" for who, n, _ in users)
    return {"/etc/passwd": passwd.encode(), "/etc/group": group.encode()}


def _covered(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


@functools.lru_cache(maxsize=1)
def python_roots() -> tuple[str, ...]:
    """The directories this interpreter needs (prefixes and the executable's dir), outside /usr."""
    candidates = [
        sys.base_prefix,
        sys.prefix,
        sys.base_exec_prefix,
        sys.exec_prefix,
        os.path.dirname(sys.executable),
        os.path.dirname(os.path.realpath(sys.executable)),
    ]
    roots: list[str] = []
    for path in sorted({os.path.abspath(p) for p in candidates if p}, key=len):
        if not _covered(path, ["/usr", *roots]) and os.path.isdir(path):
            roots.append(path)
    return tuple(roots)


@functools.lru_cache(maxsize=1)
def _system_binds() -> tuple[str, ...]:
    """bwrap arguments for the read-only system part of the sandbox; the same for every run."""
    args = ["--ro-bind", "/usr", "/usr"]
    for path in _LIB_LINKS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    args += ["--perms", "0755", "--dir", "/etc"]
    for path in _ETC_FILES:
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    return tuple(args)


def _ancestors(paths: Sequence[str], made: set[str]) -> list[str]:
    """``--dir`` arguments for the parents of bind targets: traversable (0755), created once."""
    args: list[str] = []
    for path in paths:
        parts = path.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            parent = "/" + "/".join(parts[:i])
            if parent not in made and parent not in ("/usr", "/etc"):
                made.add(parent)
                args += ["--perms", "0755", "--dir", parent]
    return args


def check_ro_paths(ro_paths: Sequence[str]) -> list[str]:
    """Absolute, existing, normalised paths; ValueError naming the first bad one."""
    checked = []
    for path in ro_paths:
        if not isinstance(path, str) or not os.path.isabs(path):
            raise ValueError(f"ro_paths entries must be absolute paths, got {path!r}")
        if not os.path.exists(path):
            raise ValueError(f"ro_paths entry {path!r} does not exist on this host")
        checked.append(os.path.normpath(path))
    return checked


def _memfd(name: str, content: bytes) -> int:
    fd = os.memfd_create(f"sandbox:{name}"[:240], os.MFD_CLOEXEC)
    try:
        _write_all(fd, content)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_all(fd: int, content: bytes) -> None:
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view) :]


def _files_args(files: Mapping[str, bytes], fds: list[int], dirs: Sequence[str] = ()) -> list[str]:
    args: list[str] = []
    for d in parent_dirs(files, dirs):
        args += ["--perms", "0777", "--dir", f"{WORKDIR}/{d}"]
    for name, content in files.items():
        fds.append(_memfd(name, content))
        args += ["--perms", "0666", "--file", str(fds[-1]), f"{WORKDIR}/{name}"]
    return args


def bwrap_argv(
    bwrap: str,
    *,
    files: Mapping[str, bytes],
    ro_paths: Sequence[str],
    network: bool,
    disk_mb: int,
    as_root: bool,
    fresh_netns: bool | None = None,
    extra: Sequence[str] = (),
    workdir_bind: str | None = None,
    workdir_ro_binds: Mapping[str, str] | None = None,
    dirs: Sequence[str] = (),
    user: tuple[str, int] | None = None,
) -> tuple[list[str], list[int]]:
    """The bwrap prefix for one run and the memfds it reads the files from (caller closes them).

    ``fresh_netns``: give the run a network namespace of its own (default: unless ``network``).
    False with ``network=False`` means the caller spawns bwrap inside a namespace leased for the
    run (``netns_pool``); only root can, as a user namespace would need a network one of its own.
    ``extra``: more bwrap options (e.g. ``start_gate``'s ``--info-fd``/``--block-fd``).
    ``workdir_bind``: a host directory, already holding the files, bound read-write at :data:`WORKDIR`
    instead of the in-memory one (``files`` is then ignored): the host reads it back after the run.
    ``workdir_ro_binds``: host directories bound read-only inside the work dir, ``{host_path:
    relative_target}`` (the workspace's ``.git``: git commands read it, nothing writes it).
    ``dirs``: folders the in-memory work dir holds besides the files' parents (empty ones).
    ``user``: ``(name, uid)``, the run's uid as it runs: ``/etc/passwd`` and ``/etc/group`` naming it
    (`account_files`), so ``ls -l`` shows that name; none of the host's accounts.

    ``as_root``: bwrap runs as real root, so it skips the user namespace (inside it only uid 0
    would be mapped) and keeps CAP_SETUID/SETGID/SETPCAP for the ``setpriv`` that follows, which
    drops them with the switch to the run's own uid.
    """
    fresh_netns = not network if fresh_netns is None else fresh_netns
    if as_root:
        args = [bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--unshare-net"] if fresh_netns else []
        caps = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    else:
        args = [bwrap, "--unshare-all", *(["--share-net"] if network else [])]
        caps = ["--cap-drop", "ALL"]
    args += ["--die-with-parent", "--new-session", "--hostname", "sandbox", *caps, *extra]
    args += _system_binds()
    size = str(disk_mb << 20)
    args += ["--proc", "/proc", "--perms", "0755", "--size", size, "--tmpfs", "/dev"]
    for node in _DEV_NODES:
        args += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
    for target, name in _DEV_LINKS:
        args += ["--symlink", target, f"/dev/{name}"]
    args += ["--perms", "1777", "--dir", "/dev/shm"]
    args += ["--perms", "1777", "--size", size, "--tmpfs", "/tmp"]
    if workdir_bind is None:
        args += ["--perms", "0777", "--size", size, "--tmpfs", WORKDIR]
    else:
        args += ["--bind", workdir_bind, WORKDIR]
    # Binds come after the tmpfs mounts, so a ro_path under /tmp is not hidden by them.
    binds = [p for p in python_roots() if not _covered(p, ro_paths)]
    binds += [p for p in ro_paths if not _covered(p, ["/usr", *[b for b in binds if b != p]])]
    if network:
        binds += [p for p in _ETC_NETWORK if os.path.exists(p)]
    made: set[str] = {"/tmp", WORKDIR}
    for path in binds:
        args += _ancestors([path], made)
        args += ["--ro-bind", path, path]
        made.add(path)
    for host, target in (workdir_ro_binds or {}).items():
        args += ["--ro-bind", host, f"{WORKDIR}/{target}"]
    fds: list[int] = []
    try:
        args += _files_args(files, fds, dirs) if workdir_bind is None else []
        for path, content in account_files(*user).items() if user else ():
            fds.append(_memfd(path, content))
            args += ["--perms", "0644", "--file", str(fds[-1]), path]
    except BaseException:
        close_fds(fds)
        raise
    args += ["--chdir", WORKDIR, "--"]
    return args, fds


def close_fds(fds: Sequence[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def unshare_argv(unshare: str, *, fresh_netns: bool) -> list[str]:
    """Fallback without bubblewrap (root only): private net/pid/ipc/uts namespaces and /proc.

    ``fresh_netns`` False: the host network (``network=True``), or a namespace leased for the run.

    The filesystem is the host's: this isolates the network and the process tree, not files. A
    shell stands in as the namespace's init (pid 1 ignores default-action signals, so the program
    must not be it); like bwrap, it reports a death by signal N as exit code 128 + N.
    """
    args = [unshare, "--pid", "--fork", "--kill-child", "--mount-proc", "--ipc", "--uts"]
    init = ["/bin/sh", "-c", '"$@"; exit $?', "sh"]  # not the last command, so sh forks it
    return [*args, *(["--net"] if fresh_netns else []), "--", *init]
