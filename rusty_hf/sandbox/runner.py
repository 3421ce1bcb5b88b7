"""Running one command in the sandbox: ``run``, ``run_python`` and the ``SandboxResult`` they return.

A run is one ``Popen`` of a chain of exec wrappers, each doing one job and exec-ing the next, so
no helper process is spawned and the spawn itself stays on CPython's fast vfork path (no
``preexec_fn``, no ``user=``):

    sh -c <join the run's cgroups>  ->  bwrap ... (or unshare ...)  ->  prlimit ...  ->  setpriv ...  ->  argv

Each wrapper is present only when its layer works here (``capabilities()``, which probes them once);
``launch.py`` plans and supervises the chain. The parent reads the capped output until the process
exits, the wall-clock deadline passes or a stream overflows, kills whatever is left (process group,
cgroup, pid namespace), gives the run's cgroups back to their pool and removes its work dir.

    result = run_python("print(sum(range(10)))", timeout=5)
    assert result.ok and result.stdout == "45\\n"
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

from rusty_hf.sandbox.capabilities import capabilities
from rusty_hf.sandbox.channel import Channel
from rusty_hf.sandbox.isolation import check_isolation
from rusty_hf.sandbox.launch import SandboxError, SandboxResult, launch_run
from rusty_hf.sandbox.layers import SandboxCapabilities
from rusty_hf.sandbox.limits import Limits

MAIN_FILE = "main.py"


def run(
    argv: list[str],
    *,
    files: dict[str, str | bytes] | None = None,
    timeout: float = 10.0,
    limits: Limits | None = None,
    network: bool = False,
    ro_paths: Sequence[str] = (),
    env: dict[str, str] | None = None,
    caps: SandboxCapabilities | None = None,
    collect_files: bool = False,
    skip_dirs: Sequence[str] = (),
    workdir_ro_binds: Mapping[str, str] | None = None,
    session: Callable[[Channel], object] | None = None,
    dirs: Sequence[str] = (),
    user: str | None = None,
    mtimes: Mapping[str, int] | None = None,
) -> SandboxResult:
    """Run ``argv`` in a fresh work dir holding ``files`` (its cwd and HOME), with every layer available.

    Args:
        argv: the command; ``argv[0]`` is looked up on the sandbox's PATH (this Python's bin dir,
            /usr/local/bin, /usr/bin, /bin).
        files: relative path -> content, written into the work dir first.
        dirs: relative folder paths the work dir holds too (an empty folder has no file to carry it).
        timeout: wall-clock seconds before everything the run started is killed.
        limits: resource limits; None takes ``Limits()``.
        network: keep the host network (only under namespaces does False actually cut it).
        ro_paths: extra host paths (absolute) made readable, read-only, at the same place.
        env: extra environment variables on top of the clean PATH/HOME/LANG/TMPDIR.
        caps: layers to use; None uses all that work here (``capabilities()``), and refuses to run
            without bubblewrap unless the user opted in (``isolation.py``). Explicit caps are not
            checked: they are a test's or benchmark's deliberate choice of layers.
        collect_files: once every process of the run is dead, read the work dir's regular files back
            into ``SandboxResult.files``, its folders into ``SandboxResult.folders``. The work dir is then
            a host directory (on /dev/shm where it can be, charged to the run's memory cgroup) bound in
            read-write, and the host walks it itself (``readback.py``): nothing the command prints is taken for what it changed.
        skip_dirs: directory names the read-back does not enter (e.g. ``.git``), at any depth.
        workdir_ro_binds: ``{host_dir: relative_target}`` bound read-only inside the work dir, under
            bubblewrap only (the caller checks ``SandboxResult.layers`` for "bwrap"); e.g. a
            repository's ``.git``, so that git can read history it cannot change.
        session: talk to the process while it runs: its stdin and stdout become a :class:`Channel`
            (``channel.py``) that this function is called with, in this thread, once the process has
            started; the run ends, and everything it started is killed, when the function returns.
            Its return value is ``SandboxResult.session_result``; ``SandboxResult.stdout`` stays empty.
        user: a name for the run's uid and gid, under bubblewrap only: the run's ``/etc/passwd`` and
            ``/etc/group`` then list root, this name and nobody (nothing of the host's), so ``ls -l`` and
            ``whoami`` show a name instead of the run's per-run uid. None: no such files (the default).
        mtimes: ``{relative path: ns since the epoch}`` for files and folders of the work dir ("." for
            the work dir itself), with ``collect_files`` only: the modification times they have when the
            run starts (as on the host they were copied from); the others have the time they were written at.

    Returns:
        A :class:`SandboxResult`. Raises ValueError for bad arguments, IsolationMissing (a
        SandboxError, one line naming the fix) where this host cannot isolate the run's filesystem,
        and SandboxError when the sandbox itself cannot start; whatever the command does is
        reported, never raised.
    """
    caps = caps if caps is not None else check_isolation(capabilities())  # fail closed (isolation.py)
    return launch_run(argv, caps, files=files, timeout=timeout, limits=limits,
                      network=network, ro_paths=ro_paths, env=env, collect_files=collect_files, skip_dirs=skip_dirs,
                      workdir_ro_binds=workdir_ro_binds, session=session, dirs=dirs, user=user, mtimes=mtimes)


def run_python(
    code: str,
    *,
    files: dict[str, str | bytes] | None = None,
    timeout: float = 10.0,
    limits: Limits | None = None,
    args: Sequence[str] = (),
    site_packages: bool = True,
    caps: SandboxCapabilities | None = None,
) -> SandboxResult:
    """Run ``code`` as ``main.py`` with this interpreter, next to ``files``, in the sandbox.

    The interpreter runs with ``-B -E -s`` (no .pyc files, no PYTHON* variables, no user site): ``-I``
    without ``-P``, so the work dir stays on ``sys.path`` and ``import solution`` finds its files.
    ``site_packages=False`` adds ``-S``: stdlib only, and a much faster start where site-packages
    holds ``.pth`` hooks (here about 60 of the 70 ms a bare start costs).
    """
    if not isinstance(code, str):
        raise TypeError(f"code must be a str of Python source, got {type(code).__name__}")
    files = dict(files or {})
    if MAIN_FILE in files:
        raise ValueError(f"files may not contain {MAIN_FILE!r}: run_python writes `code` there")
    files[MAIN_FILE] = code
    flags = ["-B", "-E", "-s"] if site_packages else ["-B", "-E", "-s", "-S"]
    argv = [sys.executable, *flags, MAIN_FILE, *args]
    return run(argv, files=files, timeout=timeout, limits=limits, caps=caps)


__all__ = ["MAIN_FILE", "SandboxError", "SandboxResult", "run", "run_python"]
