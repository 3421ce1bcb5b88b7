"""The agent's work dir: safe EDITs into it, and CMDs run in the sandbox against a copy of it.

    from rusty_hf.agent.workspace import Workspace, PathRefused
    ws = Workspace("project/")
    ws.write_file("src/main.py", "print('hi')\\n")      # PathRefused for '/etc/x', '../x', escaping symlinks
    result = ws.run("python3 src/main.py > out.txt")     # out.txt now exists in project/
    print(result.output, result.returncode, result.changed)

How a persistent work dir maps onto :func:`rusty_hf.sandbox.run`, which gives every run a fresh,
private (under bubblewrap, in-memory) work dir holding only the ``files`` it is handed: each command
gets the workspace's regular files (symlinks and ``EXCLUDED_DIRS`` left out), runs under ``/bin/sh``,
and then a small snapshot program in the same sandbox prints, after a random per-run marker, the
files the command created or changed and the ones it deleted. The host applies that list through
the same path checks as an EDIT, so nothing a command does can write outside the workspace.

Where this machine has a Rust toolchain (``rustc`` found as the Rust reward finds it), commands
see it read-only: ``cargo``, ``rustc``, ``rustfmt`` and clippy of the toolchain's sysroot are on
PATH, cargo works offline with a ``CARGO_HOME`` of the run's own (``rusty_hf.agent.toolchain``).
Without one, nothing is bound and ``cargo`` is simply not found. ``target/`` is not carried over,
so each ``cargo`` command builds afresh.

What is not carried over: file modes (an executable bit set by one command is gone in the next),
symlinks and empty directories a command creates, and any change made by a command that timed out
or was killed (``CommandResult.note`` says so). The sandbox's ``Limits.disk_mb`` bounds the
workspace size; a larger one is refused with a message naming the fix.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from rusty_hf.agent.toolchain import CARGO_HOME_DIR, CommandToolchain, find_command_toolchain
from rusty_hf.sandbox import Limits, run

# Directories never copied into the sandbox (nor back): version control, caches, environments, and
# the run's own cargo home (inside the work dir where the sandbox has no private /tmp).
EXCLUDED_DIRS = frozenset(
    {".git", ".hg", "__pycache__", ".venv", "venv", "node_modules", "target", ".mypy_cache", CARGO_HOME_DIR}
)
DEFAULT_LIMITS = Limits(output_bytes=16 << 20)  # room for the snapshot after the command's own output

# Runs inside the sandbox after the command: argv = [rc, marker, manifest json, excluded json].
# Prints the marker line, then {"rc", "changed": {path: base64}, "deleted": [path]} on one line.
_SNAPSHOT = r"""
import base64, hashlib, json, os, sys
rc, marker, before, excluded = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), set(json.loads(sys.argv[4]))
changed, seen = {}, set()
for top, dirs, files in os.walk("."):
    dirs[:] = [d for d in dirs if d not in excluded and not os.path.islink(os.path.join(top, d))]
    for name in files:
        path = os.path.join(top, name)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        rel = os.path.relpath(path, ".").replace(os.sep, "/")
        with open(path, "rb") as f:
            data = f.read()
        seen.add(rel)
        if before.get(rel) != hashlib.sha256(data).hexdigest():
            changed[rel] = base64.b64encode(data).decode()
deleted = sorted(set(before) - seen)
sys.stdout.write("\n" + marker + "\n" + json.dumps({"rc": rc, "changed": changed, "deleted": deleted}) + "\n")
"""
# $1 the command, $2 the snapshot program, $3.. its arguments. The command runs in a child shell so
# its own `exit` ends only itself; stdout is flushed by the child's exit before the snapshot starts.
_WRAPPER = '/bin/sh -c "$1" </dev/null; rc=$?; exec "$3" -I -S -c "$2" "$rc" "$4" "$5" "$6"'


class PathRefused(ValueError):
    """An EDIT or write-back path that would land outside the workspace."""


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
        self.env = {"PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
        self.rust = rust

    @cached_property
    def rust_toolchain(self) -> CommandToolchain | None:
        """The Rust toolchain commands see; None without one (or with ``rust=False``). Looked up on first use."""
        return find_command_toolchain() if self.rust else None

    def resolve(self, path: str) -> Path:
        """Return the host path for ``path`` (relative to the root); PathRefused if it would leave the root.

        Refused: empty or absolute paths, ``..`` that climbs above the root, and symlinks (anywhere
        on the way) that point outside it.
        """
        if not isinstance(path, str) or not path.strip() or "\x00" in path:
            raise PathRefused(f"refused path {path!r}: give a relative path inside the work dir, e.g. 'src/main.py'")
        if os.path.isabs(path) or path.startswith("~"):
            raise PathRefused(f"refused path {path!r}: absolute paths are not allowed; use a path relative to {self.root}")
        lexical = os.path.normpath(os.path.join(self.root, path))
        if not _inside(lexical, self.root):
            raise PathRefused(f"refused path {path!r}: '..' leads outside the work dir {self.root}")
        real = os.path.realpath(lexical)
        if not _inside(real, self.root):
            raise PathRefused(f"refused path {path!r}: a symlink leads outside the work dir (to {real})")
        if real == str(self.root):
            raise PathRefused(f"refused path {path!r}: that is the work dir itself, not a file in it")
        return Path(real)

    def write_file(self, path: str, content: str | bytes) -> Path:
        """Write a whole file (an EDIT), creating its parent directories; returns the host path."""
        target = self.resolve(path)
        if target.is_dir():
            raise PathRefused(f"refused path {path!r}: it is a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        # O_NOFOLLOW: a symlink planted at the final component after the check is not followed.
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return target

    def files(self) -> dict[str, bytes]:
        """The workspace's regular files (relative path -> bytes), as a command sees them."""
        out: dict[str, bytes] = {}
        budget = self.limits.disk_mb << 20
        for top, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if d not in EXCLUDED_DIRS and not os.path.islink(os.path.join(top, d)))
            for name in sorted(names):
                host = os.path.join(top, name)
                if os.path.islink(host) or not os.path.isfile(host):
                    continue
                with open(host, "rb") as f:
                    data = f.read()
                out[os.path.relpath(host, self.root).replace(os.sep, "/")] = data
                budget -= len(data)
                if budget < 0:
                    raise ValueError(
                        f"work dir {self.root} holds more than Limits.disk_mb={self.limits.disk_mb} MB of files; "
                        "point --workdir at a smaller directory or raise the limit"
                    )
        return out

    def run(self, command: str) -> CommandResult:
        """Run ``command`` with ``/bin/sh`` in the sandbox on a copy of the workspace, then apply its file changes."""
        if not isinstance(command, str) or not command.strip():
            raise ValueError(f"command must be a non-empty shell command string, got {command!r}")
        files = self.files()
        manifest = {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}
        marker = f"rusty-workspace-{secrets.token_hex(16)}"
        tools = self.rust_toolchain
        wrapper = tools.prelude + _WRAPPER if tools else _WRAPPER
        argv = ["/bin/sh", "-c", wrapper, "sh", command, _SNAPSHOT, sys.executable, marker]
        argv += [json.dumps(manifest), json.dumps(sorted(EXCLUDED_DIRS))]
        env = {**tools.env, **self.env} if tools else self.env  # the caller's own settings win
        ro_paths = tools.ro_paths if tools else ()
        result = run(argv, files=files, timeout=self.timeout, limits=self.limits, env=env, ro_paths=ro_paths)
        head, found, tail = result.stdout.rpartition(f"\n{marker}\n")
        output = (head if found else result.stdout) + result.stderr
        snapshot = _read_snapshot(tail) if found else None
        if snapshot is None:
            why = "timed out" if result.timed_out else f"ended early ({result.limit_hit or 'killed'})"
            return CommandResult(command, result.returncode, output, result.timed_out, note=f"the command {why}; "
                                 "its file changes were not kept")  # fmt: skip
        out = CommandResult(command, snapshot["rc"], output, result.timed_out)
        self._apply(snapshot, out)
        return out

    def _apply(self, snapshot: dict, out: CommandResult) -> None:
        refused = []
        for name, data in sorted(snapshot["changed"].items()):
            try:
                self.write_file(name, base64.b64decode(data))
                out.changed.append(name)
            except (PathRefused, OSError) as exc:
                refused.append(f"{name}: {exc}")
        for name in snapshot["deleted"]:
            try:
                target = self.resolve(name)
                if target.is_file():
                    target.unlink()
                    out.deleted.append(name)
            except (PathRefused, OSError) as exc:
                refused.append(f"{name}: {exc}")
        if refused:
            out.note = "not applied: " + "; ".join(refused)


def _inside(path: str, root: Path) -> bool:
    return path == str(root) or path.startswith(str(root) + os.sep)


def _read_snapshot(text: str) -> dict | None:
    """The snapshot line, checked; None when the run ended before writing a complete one."""
    try:
        snapshot = json.loads(text.strip().splitlines()[0])
    except (ValueError, IndexError):
        return None
    ok = isinstance(snapshot, dict) and isinstance(snapshot.get("rc"), int)
    ok = ok and isinstance(snapshot.get("changed"), dict) and isinstance(snapshot.get("deleted"), list)
    return snapshot if ok else None
