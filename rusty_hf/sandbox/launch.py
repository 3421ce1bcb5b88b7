"""Launching one command under given isolation layers: the machinery behind ``runner.run``.

Which layers a run gets is decided elsewhere (``runner.run`` asks ``capabilities()``; the capability
probes call `launch` with the layers they test), so this module needs no detection and the probes
need no runner.

A run is one ``Popen`` of a chain of exec wrappers, each doing one job and exec-ing the next, so
no helper process is spawned and the spawn itself stays on CPython's fast vfork path (no
``preexec_fn``, no ``user=``):

    sh -c <join the run's cgroups>  ->  bwrap ... (or unshare ...)  ->  prlimit ...  ->  setpriv ...  ->  argv

Each wrapper is present only when its layer is (see ``capabilities.py``), and ``setpriv`` is
``uidswitch`` where that helper could be compiled (``identity.py``). As root, the spawn itself
happens inside a network namespace leased for the run (``netns_pool.py``), so the namespaces
wrapper does not make one; and where the run's cgroups are v1 the spawning thread carries them
too (``RunCgroups.joined_by_this_thread``) while bwrap holds the run at its start until the parent
has set its rlimits (``start_gate.py``), so the chain is only ``bwrap -> uidswitch -> argv``.
Elsewhere, where the cgroup shell is there and its ``ulimit`` checks out, it sets the rlimits
itself and ``prlimit`` drops out of the chain (each exec costs ~1.5 ms). The parent then reads
the capped output until the process exits, the wall-clock deadline passes or a stream overflows,
kills whatever is left (process group, cgroup, pid namespace), gives the run's cgroups back to
their pool (``cgroup_pool.py``) and removes its work dir.

    result = run_python("print(sum(range(10)))", timeout=5)
    assert result.ok and result.stdout == "45\\n"
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rusty_hf.sandbox.cgroup_pool import CgroupPool, pool_for
from rusty_hf.sandbox.cgroups import JOIN_FAILED_EXIT, JOIN_FAILED_MARKER, RunCgroups
from rusty_hf.sandbox.identity import UID_SWITCH_FAILED_MARKER, helper_fd, run_uid, setpriv_argv, uid_helper_argv
from rusty_hf.sandbox.layers import SandboxCapabilities
from rusty_hf.sandbox.limits import (
    MB,
    ULIMIT_FAILED_MARKER,
    Limits,
    classify_exit,
    preexec_setter,
    prlimit_argv,
    ulimit_script,
)
from rusty_hf.sandbox.namespaces import WORKDIR, bwrap_argv, check_ro_paths, check_user, close_fds, unshare_argv
from rusty_hf.sandbox.netns_pool import Netns, NetnsPool, pool_for_process
from rusty_hf.sandbox.channel import Channel, converse
from rusty_hf.sandbox.output import OutputPump
from rusty_hf.sandbox.processes import kill_uid
from rusty_hf.sandbox.readback import read_back
from rusty_hf.sandbox.start_gate import StartGate
from rusty_hf.sandbox.workdir import (
    check_dirs,
    check_files,
    host_workdir_parent,
    make_host_workdir,
    parent_dirs,
    remove_host_workdir,
)

logger = logging.getLogger(__name__)

_DRAIN_S = 0.25  # after the kill, how long leftover output may take to arrive


class SandboxError(RuntimeError):
    """The sandbox itself could not run the command (as opposed to the command failing)."""


@dataclass
class SandboxResult:
    """What a sandboxed run did. ``returncode`` is negative for a death by signal (-9 = SIGKILL)."""

    returncode: int | None
    timed_out: bool
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    duration_s: float
    limit_hit: str | None  # None, "timeout", "cpu", "memory", "fsize", "nofile", "nproc", "output"
    layers: tuple[str, ...]  # isolation layers that were active for this run
    # With collect_files: the work dir's regular files after the run, read by the host itself (None
    # when it could not be read back, and files_note says why), and its folders (empty ones too).
    files: dict[str, bytes] | None = None
    files_note: str | None = None
    folders: frozenset[str] | None = None
    session_result: object = None  # what ``run(..., session=...)``'s function returned

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


@dataclass
class _Launch:
    """Everything one run sets up before the spawn, and must tear down after it."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    layers: tuple[str, ...]
    pass_fds: list[int]  # the spawn passes them on; closed after it (the run's own)
    shared_fds: tuple[int, ...] = ()  # passed on too, but this process keeps them (the uid helper)
    host_workdir: str | None = None
    cgroups: RunCgroups | None = None
    cgroup_pool: CgroupPool | None = None
    uid: int | None = None
    bwrap: bool = False
    pidns: bool = False  # everything dies with the namespace's init
    preexec: Callable[[], None] | None = None
    netns: Netns | None = None  # leased: the spawn happens inside it
    netns_pool: NetnsPool | None = None
    gate: StartGate | None = None  # rlimits set while bwrap holds the run; cgroups joined at the spawn

    def spawn_context(self) -> contextlib.ExitStack:
        """What the spawning thread wears for the spawn: the leased namespace, the run's cgroups."""
        stack = contextlib.ExitStack()
        with stack:
            if self.netns is not None:
                stack.enter_context(self.netns.entered())
            if self.gate is not None and self.cgroups is not None:
                stack.enter_context(self.cgroups.joined_by_this_thread())
            return stack.pop_all()

    def teardown(self) -> None:
        close_fds(self.pass_fds)
        self.pass_fds = []
        if self.host_workdir is not None:  # first: its /dev/shm pages are charged to the run's cgroup
            workdir, self.host_workdir = self.host_workdir, None
            remove_host_workdir(workdir)
        if self.gate is not None:
            self.gate.close()
        if self.netns is not None and self.netns_pool is not None:
            netns, self.netns = self.netns, None
            self.netns_pool.give_back(netns)
        if self.cgroups is not None and self.cgroup_pool is not None:
            cgroups, self.cgroups = self.cgroups, None
            self.cgroup_pool.give_back(cgroups)


def _environment(home: str, tmp: str, extra: Mapping[str, str] | None) -> dict[str, str]:
    pybin = os.path.dirname(sys.executable)
    env = {"PATH": f"{pybin}:/usr/local/bin:/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "TMPDIR": tmp}
    for key, value in (extra or {}).items():
        if not isinstance(key, str) or not isinstance(value, str) or not key or "=" in key:
            raise ValueError(f"env entries must be str -> str with a name free of '=', got {key!r}: {value!r}")
        env[key] = value
    return env


def _plan(
    argv: list[str],
    files: dict[str, bytes],
    limits: Limits,
    network: bool,
    ro_paths: list[str],
    env: Mapping[str, str] | None,
    caps: SandboxCapabilities,
    collect: bool = False,
    workdir_ro_binds: Mapping[str, str] | None = None,
    dirs: Sequence[str] = (),
    user: str | None = None,
    mtimes: Mapping[str, int] | None = None,
) -> _Launch:
    """Build the wrapper chain for one run, borrow its cgroups and make its work dir."""
    uid = run_uid() if caps.switches_uid else None
    launch = _Launch(argv=[], env={}, cwd="/", layers=caps.layers(network), pass_fds=[], uid=uid)
    launch.pidns = bool(caps.bwrap or caps.unshare)
    try:
        if caps.netns_pool and launch.pidns and not network:
            launch.netns_pool = pool_for_process()
            try:
                launch.netns = launch.netns_pool.lease()
            except OSError as exc:  # e.g. the host's cap on namespaces: this run makes its own
                logger.warning("sandbox: no reusable network namespace (%s); the run makes its own", exc)
        fresh_netns = not network and launch.netns is None
        if caps.cgroups.available:
            launch.cgroup_pool = pool_for(caps.cgroups)
            launch.cgroups = launch.cgroup_pool.borrow(limits)
            cg_layers = set(launch.cgroups.layers) if launch.cgroups is not None else set()
            launch.layers = tuple(n for n in launch.layers if not n.startswith("cgroup-") or n in cg_layers)
        if caps.gated_start and launch.cgroups is not None and launch.cgroups.thread_joinable:
            launch.gate = StartGate(limits, nproc=caps.nproc_rlimit)
            launch.pass_fds += launch.gate.child_fds
        # Else the shell that joins the cgroups sets the rlimits too (one exec fewer than prlimit). It
        # runs before bwrap, which must still be able to copy the files in and open its own descriptors.
        shell_rlimits = (
            launch.gate is None and launch.cgroups is not None and caps.shell_ulimit and _wrappers_fit(files, limits)
        )
        inner: list[str] = []
        if launch.gate is not None or shell_rlimits:
            pass  # set through the gate after the spawn, or by the cgroup shell below
        elif caps.prlimit:
            inner = prlimit_argv(caps.prlimit, limits, nproc=caps.nproc_rlimit)
        else:
            # Set before bwrap, RLIMIT_NPROC would count the caller's processes too; only the uid switch
            # that follows makes it the run's own.
            launch.preexec = preexec_setter(limits, nproc=caps.switches_uid)
        if uid is not None and caps.uid_helper:
            fd = helper_fd(caps.uid_helper)
            inner += uid_helper_argv(fd, uid, no_new_privs=not caps.bwrap)
            launch.shared_fds = (fd,)
        elif uid is not None:
            inner += setpriv_argv(caps.setpriv, uid, no_new_privs=not caps.bwrap)
        if collect:  # a work dir the host owns and reads back itself (see readback.py)
            parent = host_workdir_parent(2 * limits.disk_mb)
            # The binds' mount points made here, so mounting them changes no time ``mtimes`` set.
            mount_points = [*dirs, *(workdir_ro_binds or {}).values()] if caps.bwrap else dirs
            launch.host_workdir = make_host_workdir(files, owner=uid, parent=parent, dirs=mount_points, mtimes=mtimes)
        if caps.bwrap:
            outer, file_fds = bwrap_argv(
                caps.bwrap, files=files, ro_paths=ro_paths, network=network, disk_mb=limits.disk_mb,
                as_root=caps.root, fresh_netns=fresh_netns, extra=launch.gate.bwrap_args if launch.gate else (),
                workdir_bind=launch.host_workdir, workdir_ro_binds=workdir_ro_binds, dirs=dirs,
                user=None if user is None else (user, uid if uid is not None else os.getuid()),
            )  # fmt: skip
            launch.pass_fds += file_fds
            launch.bwrap = True
            launch.env = _environment(WORKDIR, "/tmp", env)  # both private to the run
        else:
            outer = unshare_argv(caps.unshare, fresh_netns=fresh_netns) if caps.unshare else []
            if launch.host_workdir is None:
                launch.host_workdir = make_host_workdir(files, owner=uid, dirs=dirs)
            launch.cwd = launch.host_workdir
            launch.env = _environment(launch.cwd, launch.cwd, env)  # temp files go with the work dir
        if launch.cgroups is not None and launch.gate is None:
            script = launch.cgroups.join_script()
            if shell_rlimits:
                # RLIMIT_NPROC as in prlimit's place: the shell is root (ignored) until setpriv's switch
                failed = f'{{ echo "{ULIMIT_FAILED_MARKER}" >&2; exit {JOIN_FAILED_EXIT}; }}'
                script = f"{ulimit_script(limits, nproc=caps.nproc_rlimit)} || {failed}; {script}"
            outer = ["/bin/sh", "-c", script, "sh", *outer]
        launch.argv = [*outer, *inner, *argv]
    except BaseException:
        launch.teardown()
        raise
    return launch


def _wrappers_fit(files: dict[str, bytes], limits: Limits) -> bool:
    """Whether the wrappers, started under the run's rlimits, can still copy ``files`` in (FSIZE, NOFILE)."""
    largest = max((len(content) for content in files.values()), default=0)
    return largest <= limits.fsize_mb * MB and len(files) + 32 <= limits.nofile


def _kill_and_reap(proc: subprocess.Popen, launch: _Launch) -> int | None:
    """SIGKILL everything the run started and return the main process's exit code.

    The process group goes first, before the reap, so its pgid cannot have been recycled; then the
    cgroups (or, with neither cgroups nor a pid namespace, the run's uid) catch what left the group.
    """
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        code: int | None = proc.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        logger.warning("sandbox: pid %d did not exit after SIGKILL", proc.pid)
        code = None
    if launch.cgroups is not None:
        launch.cgroups.kill()  # after the reap, so the main process's zombie is not listed
    elif launch.uid is not None and not launch.pidns:
        kill_uid(launch.uid)
    if code is not None and launch.pidns and 128 < code <= 128 + 64:
        return -(code - 128)  # the namespace's init reports a death by signal N as 128 + N, like a shell
    return code


def _limit_hit(why: str, code: int | None, stderr: str, launch: _Launch) -> str | None:
    if why in ("timeout", "output"):
        return why
    from_cgroup = launch.cgroups.limit_hit() if launch.cgroups is not None else None
    if from_cgroup == "memory":
        return from_cgroup
    return classify_exit(code, stderr[-2000:]) or from_cgroup


def _check_args(argv: Sequence[str], timeout: float) -> list[str]:
    if isinstance(argv, (str, bytes)) or not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError(f"argv must be a non-empty list of strings, e.g. ['python3', 'main.py'], got {argv!r}")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return list(argv)


def launch_run(
    argv: list[str],
    caps: SandboxCapabilities,
    *,
    files: dict[str, str | bytes] | None = None,
    timeout: float = 10.0,
    limits: Limits | None = None,
    network: bool = False,
    ro_paths: Sequence[str] = (),
    env: dict[str, str] | None = None,
    collect_files: bool = False,
    skip_dirs: Sequence[str] = (),
    workdir_ro_binds: Mapping[str, str] | None = None,
    session: Callable[[Channel], object] | None = None,
    dirs: Sequence[str] = (),
    user: str | None = None,
    mtimes: Mapping[str, int] | None = None,
) -> SandboxResult:
    """``runner.run`` with the layers given: the capability probes run through it (``capabilities.py``)."""
    argv = _check_args(argv, timeout)
    limits = limits if limits is not None else Limits()
    checked_files, ro = check_files(files), check_ro_paths(ro_paths)
    checked_dirs = check_dirs(dirs, checked_files)
    user = check_user(user)
    if mtimes and not collect_files:
        raise ValueError("mtimes needs collect_files=True (the in-memory work dir's files are written at the run's start)")
    stray = sorted(set(mtimes or ()) - {".", *checked_files, *parent_dirs(checked_files, checked_dirs)})
    if stray:
        raise ValueError(f"mtimes: {stray[0]!r} is neither a file nor a folder of the work dir")
    total = sum(len(content) for content in checked_files.values())
    if total > limits.disk_mb << 20:
        raise ValueError(f"files hold {total >> 20} MB, more than Limits.disk_mb={limits.disk_mb}; raise disk_mb")
    for host, target in (workdir_ro_binds or {}).items():
        check_files({target: b""})  # a relative path inside the work dir, or ValueError
        if not os.path.isabs(host) or any(name == target or name.startswith(target + "/") for name in checked_files):
            raise ValueError(f"workdir_ro_binds: {host!r} -> {target!r} needs an absolute host path and a target no file uses")
    plan = _plan(argv, checked_files, limits, network, ro, env, caps, collect=collect_files,
                 workdir_ro_binds=workdir_ro_binds, dirs=checked_dirs, user=user, mtimes=mtimes)  # fmt: skip
    try:
        result = _execute(plan, limits, timeout, session)
        if collect_files:
            folders: set[str] = set()
            result.files, result.files_note = read_back(
                plan.host_workdir, skip_dirs=skip_dirs, max_bytes=limits.disk_mb << 20, folders=folders
            )
            result.folders = frozenset(folders) if result.files is not None else None
        return result
    finally:
        plan.teardown()


def _execute(
    launch: _Launch,
    limits: Limits,
    timeout: float,
    session: Callable[[Channel], object] | None = None,
) -> SandboxResult:
    """Spawn the planned chain, supervise it to the end, and never leave any of it running."""
    start = time.monotonic()
    try:
        with launch.spawn_context():
            proc = subprocess.Popen(
                launch.argv, stdin=subprocess.DEVNULL if session is None else subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=launch.env, cwd=launch.cwd, start_new_session=True,
                pass_fds=[*launch.pass_fds, *launch.shared_fds],
                # None (the fast vfork path) unless prlimit is missing; the fallback only calls setrlimit.
                preexec_fn=launch.preexec,  # noqa: PLW1509
            )  # fmt: skip
    except OSError as exc:
        raise SandboxError(f"could not start {launch.argv[0]!r}: {exc}") from exc
    close_fds(launch.pass_fds)  # the child holds its own copies of the file memfds
    launch.pass_fds = []
    # With a session, stdin and stdout are the channel (the pump reads stderr alone).
    channel = Channel(proc.stdin, proc.stdout, deadline=start + timeout) if session is not None else None
    pump, reaped, session_result = None, False, None
    try:
        if launch.gate is not None:
            try:
                launch.gate.release(start + timeout)
            except OSError as exc:  # TimeoutError included; the finally below kills what started
                raise SandboxError(f"could not start the run under its rlimits: {exc}") from exc
        pump = OutputPump(proc, limits.output_bytes, streams=("stdout", "stderr") if channel is None else ("stderr",))
        if channel is None:
            why = pump.run(start + timeout)
        else:
            why, session_result = converse(pump, channel, session, start + timeout)
        code, reaped = _kill_and_reap(proc, launch), True
        pump.drain(time.monotonic() + _DRAIN_S)
        duration = time.monotonic() - start
    finally:
        if not reaped:  # an exception (KeyboardInterrupt...) must not leave the run alive
            _kill_and_reap(proc, launch)
        if channel is not None:
            channel.close()
        if pump is not None:
            pump.close()
        else:
            proc.stdout.close()
            proc.stderr.close()
    stdout, stderr = pump.text("stdout"), pump.text("stderr")
    markers = (JOIN_FAILED_MARKER, ULIMIT_FAILED_MARKER, UID_SWITCH_FAILED_MARKER)
    if code == JOIN_FAILED_EXIT and any(marker in stderr for marker in markers):
        raise SandboxError(stderr.strip().splitlines()[-1])
    return SandboxResult(
        returncode=code, timed_out=why == "timeout", stdout=stdout, stderr=stderr,
        stdout_truncated=pump.truncated["stdout"], stderr_truncated=pump.truncated["stderr"],
        duration_s=duration, limit_hit=_limit_hit(why, code, stderr, launch), layers=launch.layers,
        session_result=session_result,
    )  # fmt: skip
