"""Who sandboxed code runs as: a fresh non-root uid per run when the caller is root.

Root ignores RLIMIT_NPROC and owns most of the host's files, so as root every run switches to its
own unprivileged uid/gid (no passwd entry, no supplementary groups, no capabilities) with
``setpriv(1)``, exec-ed as the last wrapper before the command. A uid of its own per run (rather
than one shared ``nobody``) keeps RLIMIT_NPROC per run (a fork bomb in one run cannot starve its
neighbours of processes) and means no other process on the host shares it.

    argv = [*setpriv_argv("/usr/bin/setpriv", run_uid(), no_new_privs=True), "python3", "main.py"]
"""

from __future__ import annotations

import itertools
import os

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
