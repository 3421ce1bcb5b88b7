"""The agent's work dir: safe EDITs into it, and CMDs run in the sandbox against a copy of it.

    from rusty_hf.agent.workspace import Workspace, PathRefused
    ws = Workspace("project/")
    ws.write_file("src/main.py", "print('hi')\\n")      # PathRefused for '/etc/x', '../x', '.git/config', symlinks
    result = ws.run("python3 src/main.py > out.txt")     # out.txt now exists in project/
    print(result.output, result.returncode, result.changed)

How a persistent work dir maps onto :func:`rusty_hf.sandbox.run`: each command gets a fresh copy of
the workspace's regular files and folders (symlinks, special files and ``EXCLUDED_DIRS`` left out) in a work dir
that the host owns, runs under ``/bin/sh`` in the sandbox, and, once every process of the run is
dead, the host reads that copy back itself (``run(..., collect_files=True)``, see
``rusty_hf.sandbox.readback``) and compares it with what it handed in: the files that differ were
changed, the ones missing were deleted; a folder it made (`mkdir`, empty or not) is made on the host, an
empty one it removed is removed. Nothing the command prints is taken for what it changed.
Every change then goes through the same checks as an EDIT.

What a path may be, for an EDIT and for a command's changes alike: relative, inside the work dir,
with no component in ``EXCLUDED_DIRS`` (compared case-insensitively: ``.git/config`` with an
``fsmonitor`` hook would run on the host at the user's next ``git status``; ``.venv/bin/activate`` at
the next activation), and no component that exists on the host as anything but a directory (or, for
the last one, a regular file): symlinks, FIFOs and devices are refused, not followed. Writes go
through directory file descriptors opened with ``O_NOFOLLOW`` and replace the file with a new one
(a hard link to a file elsewhere is not written through); an existing file keeps its mode.

The workspace's own ``.git`` (a directory, not a link) is bound read-only into the run where the
sandbox has bubblewrap, so ``git status``/``log``/``diff``/``show`` work and nothing can change the
repository; without bubblewrap, commands see no repository. There, too, a command's uid (one of its own per run)
is named ``sandbox`` (`SANDBOX_USER`): ``ls -l`` shows that name, the same from run to run, and each file's and
folder's modification time as the work dir has it.

Where this machine has a Rust toolchain (``rustc`` found as the Rust reward finds it), commands
see it read-only: ``cargo``, ``rustc``, ``rustfmt`` and clippy of the toolchain's sysroot are on
PATH, cargo works offline with a ``CARGO_HOME`` of the run's own (``rusty_hf.agent.toolchain``).
Without one, nothing is bound and ``cargo`` is simply not found. ``target/`` is not carried over,
so each ``cargo`` command builds afresh.

What is not carried over: file modes of new files (an executable bit set by one command is gone in
the next), symlinks a command creates, and any change made by a command that
timed out or was killed (``CommandResult.note`` says so). The sandbox's ``Limits.disk_mb`` bounds
the workspace size; a larger one is refused with a message naming the fix.

A command's changes that lose data (a file deleted, or rewritten so that its old bytes are no longer its start: a
`sed -i`, a `>` over it, a sort; an append keeps them) are applied only if ``approve`` (given to :meth:`Workspace.run`)
says yes; rusty-terminal asks the user. The decision is made on what the run did to the copy, not on the command's
text, so no program's name is special.

Once a step is open (:meth:`Workspace.begin_change`; rusty-terminal opens one per request), every
change is journalled with the file's old bytes (and each folder made or removed), and :meth:`Workspace.undo` puts
the whole step back (rusty-terminal's ``:undo``).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from rusty_hf.agent.toolchain import CARGO_HOME_DIR, CommandToolchain, find_command_toolchain
from rusty_hf.sandbox import Limits, run
from rusty_hf.sandbox.readback import read_back

# Directories never copied into the sandbox nor written from it, at any depth: version control (its
# config and hooks run commands on the host), environments and their activation scripts, caches,
# build output, and the run's own cargo home (inside the work dir where the sandbox has no /tmp).
EXCLUDED_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", "target", ".mypy_cache", CARGO_HOME_DIR}
)
_EXCLUDED_FOLDED = frozenset(name.casefold() for name in EXCLUDED_DIRS)
DEFAULT_LIMITS = Limits(output_bytes=16 << 20)
# The name the sandbox gives each command's own uid, so `ls -l` and `whoami` show it rather than a number that
# changes with every run (and that training rows built from reference runs would otherwise carry).
SANDBOX_USER = "sandbox"
MAX_UNDO_STEPS = 20  # undo steps kept (each holds the old bytes of the files it changed)
# What an undo step holds per path beside a file's old bytes (None: the step made the file)
FOLDER_MADE, FOLDER_REMOVED = "folder made", "folder removed"
# git inside the sandbox reads the workspace's .git, which a host uid owns, as the run's own uid: the
# ownership check would refuse it. Command-scope config (protected, unlike the repository's own).
GIT_ENV = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*",
           "GIT_OPTIONAL_LOCKS": "0"}  # fmt: skip


class PathRefused(ValueError):
    """An EDIT or write-back path that would land outside the workspace, in an excluded folder, or on a non-file."""


class CommandRefused(ValueError):
    """A CMD the workspace cannot run as given (empty, or holding a NUL character)."""


class WorkspaceTooBig(ValueError):
    """The work dir holds more than the sandbox's ``Limits.disk_mb`` allows a command to see."""


# (files a change would delete, files it would rewrite losing their old bytes) -> whether to apply it
Approve = Callable[[list[str], list[str]], bool]


def loses_data(before: bytes | None, after: bytes | None) -> bool:
    """Whether writing ``after`` (None: deleting) over ``before`` (None: no file) loses bytes the file held: a
    deletion, or new content that does not start with the old. Appending loses nothing; nor does writing a new file."""
    if not before:
        return False
    return after is None or not after.startswith(before)


@dataclass
class CommandResult:
    """One CMD: its output (stdout then stderr), exit status, and what it changed in the workspace."""

    command: str
    returncode: int | None
    output: str
    timed_out: bool = False
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    note: str | None = None  # why file changes were not applied, or which were refused

    def describe(self, max_chars: int = 4000) -> str:
        """The text shown to the model and the user: output (its tail if long), then the status."""
        text = self.output if len(self.output) <= max_chars else "[...]\n" + self.output[-max_chars:]
        status = "timed out" if self.timed_out else f"exit code {self.returncode}"
        lines = [text.rstrip("\n"), f"[{status}]"] if text.strip() else [f"[{status}, no output]"]
        if self.note:
            lines.append(f"[{self.note}]")
        return "\n".join(lines)


@dataclass(frozen=True)
class Trial:
    """A command run in the sandbox and not yet applied (:meth:`Workspace.trial`): its result, the files and folders
    it was given, and those it left (None: none are kept, ``result.note`` says why)."""

    result: CommandResult
    before: tuple[dict[str, bytes], frozenset[str]]
    after: tuple[dict[str, bytes], frozenset[str]] | None

    @property
    def changes_nothing(self) -> bool:
        """Whether applying it changes nothing: the run left the files and folders it was given (or none are kept)."""
        return self.after is None or self.after == self.before


class Workspace:
    """A host directory the agent works in. EDITs write into it; CMDs run on a sandboxed copy.

    Args:
        root: the directory (created if missing).
        timeout: wall-clock seconds per command.
        limits: sandbox limits per command; the default allows 16 MB of output.
        env: extra environment variables for commands (the sandbox starts from a clean one).
        rust: give commands this machine's Rust toolchain when it has one (see the module docstring).
    """

    def __init__(
        self,
        root: str | os.PathLike,
        *,
        timeout: float = 10.0,
        limits: Limits | None = None,
        env: dict[str, str] | None = None,
        rust: bool = True,
    ) -> None:
        path = Path(root).expanduser()
        path.mkdir(parents=True, exist_ok=True)
        self.root = path.resolve(strict=True)
        self.timeout = timeout
        self.limits = limits or DEFAULT_LIMITS
        self.env = {"PYTHONDONTWRITEBYTECODE": "1", **GIT_ENV, **(env or {})}
        self.rust = rust
        # per step: (path, its bytes before; None: a new file; FOLDER_MADE or FOLDER_REMOVED: a folder)
        self._undo: list[list[tuple[str, bytes | str | None]]] = []
        self._journal = True

    def begin_change(self) -> None:
        """Open a new undo step: the file changes (EDITs, commands' changes) until the next call are undone together."""
        self._undo.append([])
        del self._undo[:-MAX_UNDO_STEPS]

    def undo(self) -> list[str]:
        """Put back what the last step with changes wrote or deleted; returns those paths ([]: nothing to undo).

        A file the step created is removed, one it changed or deleted gets its old bytes back; a folder it made
        is removed (once its files are gone: one that holds something else stays), one it removed is made again.
        Folders are listed as "name/". A path that can no longer be written is listed with why, and the rest of
        the step is still put back.
        """
        while self._undo and not self._undo[-1]:
            self._undo.pop()
        if not self._undo:
            return []
        step, self._journal = self._undo.pop(), False
        failed: dict[str, str] = {}
        try:
            for path, old in reversed(step):
                try:
                    if old == FOLDER_MADE:
                        if not self.remove_folder(path) and self.resolve(path).is_dir():
                            failed[path + "/"] = "it holds what this step did not make"
                    elif old == FOLDER_REMOVED:
                        self.make_folder(path)
                    elif old is None:
                        self.delete_file(path)
                    else:
                        self.write_file(path, old)
                except (PathRefused, OSError) as exc:  # the path became a link, a folder, ...: say so, go on
                    failed[path + "/" if isinstance(old, str) else path] = str(exc)
        finally:
            self._journal = True
        shown = sorted({path + "/" if isinstance(old, str) else path for path, old in step})
        return [f"{p} (not put back: {failed[p]})" if p in failed else p for p in shown]

    def _remember_folder(self, path: str, change: str) -> None:
        """Journal a folder made (FOLDER_MADE) or removed (FOLDER_REMOVED), into the open undo step (if one is open)."""
        if self._journal and self._undo:
            self._undo[-1].append((path, change))

    def _remember(self, path: str, dir_fd: int, name: str) -> None:
        """Journal ``path``'s bytes before a change, into the open undo step (if one is open)."""
        if not (self._journal and self._undo):
            return
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
        except OSError:  # none yet (a new file), or no regular file: the write refuses that itself
            self._undo[-1].append((path, None))
            return
        with os.fdopen(fd, "rb") as f:
            self._undo[-1].append((path, f.read() if stat.S_ISREG(os.fstat(f.fileno()).st_mode) else None))

    @cached_property
    def rust_toolchain(self) -> CommandToolchain | None:
        """The Rust toolchain commands see; None without one (or with ``rust=False``). Looked up on first use."""
        return find_command_toolchain() if self.rust else None

    def _parts(self, path: str) -> list[str]:
        """The components of ``path`` below the root, checked lexically (the host's state comes after)."""
        if not isinstance(path, str) or not path.strip() or "\x00" in path:
            raise PathRefused(f"refused path {path!r}: give a relative path inside the work dir, e.g. 'src/main.py'")
        if os.path.isabs(path) or path.startswith("~"):
            raise PathRefused(f"refused path {path!r}: absolute paths are not allowed; use a path relative to {self.root}")
        normal = os.path.normpath(path)
        if normal == ".":
            raise PathRefused(f"refused path {path!r}: that is the work dir itself, not a file in it")
        parts = normal.split(os.sep)
        if parts[0] == "..":
            raise PathRefused(f"refused path {path!r}: '..' leads outside the work dir {self.root}")
        for part in parts:
            if part.casefold() in _EXCLUDED_FOLDED:
                raise PathRefused(
                    f"refused path {path!r}: {part!r} is off limits (version control, environments and build "
                    "folders are never written by Rusty; edit them yourself)"
                )
        return parts

    def resolve(self, path: str) -> Path:
        """Return the host path for ``path`` (relative to the root); PathRefused if Rusty may not write there.

        Refused: empty or absolute paths, ``..`` that climbs above the root, a component in
        ``EXCLUDED_DIRS``, and any component that exists as something other than a directory (the
        last one: other than a regular file or a directory) -- symlinks included, wherever they point.
        """
        parts = self._parts(path)
        current = str(self.root)
        for i, part in enumerate(parts):
            current = os.path.join(current, part)
            try:
                mode = os.lstat(current).st_mode
            except FileNotFoundError:
                break
            except OSError as exc:
                raise PathRefused(f"refused path {path!r}: {exc.strerror}") from None
            last = i == len(parts) - 1
            if stat.S_ISLNK(mode):
                raise PathRefused(f"refused path {path!r}: {'/'.join(parts[: i + 1])!r} is a symlink; Rusty writes only real files")
            if not stat.S_ISDIR(mode) and not (last and stat.S_ISREG(mode)):
                what = "a file, not a directory" if stat.S_ISREG(mode) else "not a regular file"
                raise PathRefused(f"refused path {path!r}: {'/'.join(parts[: i + 1])!r} is {what}")
        return self.root.joinpath(*parts)

    def _open_parent(self, parts: list[str], *, create: bool) -> int | None:
        """A descriptor of the directory holding ``parts[-1]``, walked with O_NOFOLLOW; None if it is missing."""
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for i, part in enumerate(parts[:-1]):
                try:
                    child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        os.close(fd)
                        return None
                    os.mkdir(part, 0o755, dir_fd=fd)
                    self._remember_folder("/".join(parts[: i + 1]), FOLDER_MADE)
                    child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd

    def write_file(self, path: str, content: str | bytes) -> Path:
        """Write a whole file (an EDIT), creating its parent directories; returns the host path."""
        target = self.resolve(path)
        if target.is_dir():
            raise PathRefused(f"refused path {path!r}: it is a directory")
        parts = self._parts(path)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        try:
            dir_fd = self._open_parent(parts, create=True)
        except OSError as exc:  # ELOOP/ENOTDIR: a component turned into a symlink or file after the check
            raise PathRefused(f"refused path {path!r}: {exc.strerror}") from None
        try:
            self._remember(path, dir_fd, parts[-1])
            _replace_file(dir_fd, parts[-1], data)
        finally:
            os.close(dir_fd)
        return target

    def delete_file(self, path: str) -> bool:
        """Remove a regular file (a command's deletion); False when there is none. Never follows a symlink."""
        return self._remove(path, stat.S_ISREG, os.unlink, FileNotFoundError, journal=True)

    def _remove(self, path: str, kind, remove, quiet: type[OSError], *, journal: bool) -> bool:
        """``remove`` ``path`` when it is a ``kind`` (by ``lstat``: never through a symlink); False when it is none,
        or ``remove`` raises ``quiet``."""
        self.resolve(path)
        parts = self._parts(path)
        dir_fd = self._open_parent(parts, create=False)
        if dir_fd is None:
            return False
        try:
            if not kind(os.lstat(parts[-1], dir_fd=dir_fd).st_mode):
                return False
            if journal:
                self._remember(path, dir_fd, parts[-1])
            remove(parts[-1], dir_fd=dir_fd)
            return True
        except quiet:
            return False
        finally:
            os.close(dir_fd)

    def make_folder(self, path: str) -> bool:
        """Make a folder (a command's `mkdir`) and its parents; False when it was there already."""
        self.resolve(path)
        parts = self._parts(path)
        try:
            dir_fd = self._open_parent(parts, create=True)
        except OSError as exc:
            raise PathRefused(f"refused path {path!r}: {exc.strerror}") from None
        try:
            os.mkdir(parts[-1], 0o755, dir_fd=dir_fd)
            self._remember_folder("/".join(parts), FOLDER_MADE)
            return True
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(parts[-1], dir_fd=dir_fd).st_mode):
                raise PathRefused(f"refused path {path!r}: it exists and is not a folder") from None
            return False
        finally:
            os.close(dir_fd)

    def remove_folder(self, path: str) -> bool:
        """Remove an empty folder (a command removed it); False when there is none, or it still holds something
        (a folder the command could not see: ``__pycache__``)."""
        removed = self._remove(path, stat.S_ISDIR, os.rmdir, OSError, journal=False)
        if removed:
            self._remember_folder("/".join(self._parts(path)), FOLDER_REMOVED)
        return removed

    def paths(self, limit: int = 500) -> list[str]:
        """Relative paths of the workspace's files and folders (dotfiles and excluded folders left out),
        at most ``limit``: what a listing would show, for the decoder's copy bias."""
        found: list[str] = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d.lower() not in EXCLUDED_DIRS)
            rel = os.path.relpath(folder, self.root)
            for name in sorted(dirs) + sorted(n for n in names if not n.startswith(".")):
                found.append(name if rel == "." else f"{rel}/{name}")
                if len(found) >= limit:
                    return found
        return found

    def files(self) -> dict[str, bytes]:
        """The workspace's regular files (relative path -> bytes), as a command sees them.

        Raises:
            WorkspaceTooBig: the files exceed ``Limits.disk_mb`` (or the walk's entry/depth caps).
        """
        return self.tree()[0]

    def tree(self) -> tuple[dict[str, bytes], frozenset[str]]:
        """The regular files (as :meth:`files`) and the folders (relative paths, empty ones too), as a command sees them."""
        folders: set[str] = set()
        files, problem = read_back(str(self.root), skip_dirs=EXCLUDED_DIRS, max_bytes=self.limits.disk_mb << 20,
                                   folders=folders)  # fmt: skip
        if files is None:
            raise WorkspaceTooBig(
                f"the work dir {self.root} is too big for a command ({problem}; the limit is "
                f"{self.limits.disk_mb} MB): delete what you do not need there (build output, data), "
                "or point --workdir at a smaller folder"
            )
        return files, frozenset(folders)

    def _mtimes(self, names: list[str]) -> dict[str, int]:
        """The modification times (ns) of the work dir's files and folders, for the copy a command runs on."""
        times = {}
        for name in names:
            try:
                times[name] = os.stat(self.root / name, follow_symlinks=False).st_mtime_ns
            except OSError:  # gone since it was read: the copy keeps the time it is written at
                pass
        return times

    def run(self, command: str, approve: Approve | None = None) -> CommandResult:
        """Run ``command`` with ``/bin/sh`` in the sandbox on a copy of the workspace, then apply its file changes.

        With ``approve``, changes that lose data (`loses_data`) are applied only if ``approve(deleted, rewritten)`` is
        true; otherwise none of the run's changes is, and ``CommandResult.note`` says so.

        Raises:
            CommandRefused: an empty command, or one holding a NUL character (no shell can run it).
            WorkspaceTooBig: see :meth:`files`.
        """
        return self.apply(self.trial(command), approve)

    def trial(self, command: str) -> Trial:
        """Run ``command`` as :meth:`run` does and apply nothing: the work dir is left as it is.

        :meth:`apply` then applies the run to this work dir, or to another holding the same files (a copy), exactly
        as :meth:`run` would have. Raises as :meth:`run`.
        """
        if not isinstance(command, str) or not command.strip():
            raise CommandRefused(f"command must be a non-empty shell command string, got {command!r}")
        if "\x00" in command:
            raise CommandRefused("refused command: it holds a NUL character (\\u0000), which no shell can run")
        files, folders = self.tree()
        tools = self.rust_toolchain
        script = tools.prelude + command if tools else command
        env = {**tools.env, **self.env} if tools else self.env  # the caller's own settings win
        ro_paths = tools.ro_paths if tools else ()
        git = self.root / ".git"
        binds = {str(git): ".git"} if git.is_dir() and not git.is_symlink() else None
        result = run(
            ["/bin/sh", "-c", script], files=files, timeout=self.timeout, limits=self.limits, env=env,
            ro_paths=ro_paths, collect_files=True, skip_dirs=sorted(EXCLUDED_DIRS), workdir_ro_binds=binds,
            dirs=sorted(folders),  # an empty folder has no file to carry it into the copy
            user=SANDBOX_USER, mtimes=self._mtimes([".", *files, *folders]),
        )  # fmt: skip
        out = CommandResult(command, result.returncode, result.stdout + result.stderr, result.timed_out)
        killed = result.returncode is None or result.returncode < 0 or result.limit_hit is not None
        after = None
        if result.timed_out or killed:
            why = "timed out" if result.timed_out else f"ended early ({result.limit_hit or 'killed'})"
            out.note = f"the command {why}; its file changes were not kept"
        elif result.files is None:
            out.note = f"its file changes were not kept: {result.files_note}"
        else:
            after = (result.files, result.folders or frozenset())
        return Trial(out, (files, folders), after)

    def apply(self, trial: Trial, approve: Approve | None = None) -> CommandResult:
        """Apply a :meth:`trial`'s file changes here (see :meth:`run` for ``approve``); returns its result, which
        then names what changed. A trial applies once."""
        out = trial.result
        if trial.after is None:
            return out
        (files, folders), (after, after_folders) = trial.before, trial.after
        if approve is not None and (refusal := self._refusal(files, after, approve)):
            out.note = f"its file changes were not kept: {refusal}"
        else:
            self._apply(files, after, out)
            self._apply_folders(folders, after_folders, out)
        return out

    def _refusal(self, before: dict[str, bytes], after: dict[str, bytes], approve: Approve) -> str | None:
        """Why a run's changes are not applied (None: they are): not approved, or the work dir changed meanwhile."""
        deleted = sorted(name for name in before.keys() - after.keys() if loses_data(before[name], None))
        rewritten = sorted(name for name in after.keys() & before.keys() if loses_data(before[name], after[name]))
        if not (deleted or rewritten):
            return None
        if not approve(deleted, rewritten):
            return "the user did not approve them"
        if self.tree()[0] != before:  # edited by hand while the user was asked: the run saw another work dir
            return "the work dir changed while the user was asked; run it again"
        return None

    def _apply(self, before: dict[str, bytes], after: dict[str, bytes], out: CommandResult) -> None:
        refused = []
        for name in sorted(after):
            if before.get(name) == after[name]:
                continue
            try:
                self.write_file(name, after[name])
                out.changed.append(name)
            except (PathRefused, OSError) as exc:
                refused.append(f"{name}: {exc}")
        for name in sorted(before.keys() - after.keys()):
            try:
                if self.delete_file(name):
                    out.deleted.append(name)
            except (PathRefused, OSError) as exc:
                refused.append(f"{name}: {exc}")
        if refused:
            out.note = "not applied: " + "; ".join(refused)

    def _apply_folders(self, before: frozenset[str], after: frozenset[str], out: CommandResult) -> None:
        """The folders a command made (`mkdir`), then those it removed (once their files are gone), as "name/"."""
        refused = []
        for name in sorted(after - before, key=lambda p: (p.count("/"), p)):
            try:
                if self.make_folder(name):  # not made already by a file written into it
                    out.changed.append(name + "/")
            except (PathRefused, OSError) as exc:
                refused.append(f"{name}/: {exc}")
        for name in sorted(before - after, key=lambda p: (-p.count("/"), p)):
            try:
                if self.remove_folder(name):
                    out.deleted.append(name + "/")
            except (PathRefused, OSError) as exc:
                refused.append(f"{name}/: {exc}")
        if refused:
            out.note = "; ".join(filter(None, [out.note, "not applied: " + "; ".join(refused)]))


def _replace_file(dir_fd: int, name: str, data: bytes) -> None:
    """Write ``name`` in ``dir_fd`` as a new file renamed over the old one, keeping an existing file's mode."""
    try:
        old = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise PathRefused(f"refused path {name!r}: not a regular file")
    temp = f".{name[:200]}.rusty-{secrets.token_hex(6)}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if old is not None:
                os.fchmod(f.fileno(), stat.S_IMODE(old.st_mode))
        os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
