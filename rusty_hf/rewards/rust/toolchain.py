"""Finding the Rust toolchain the Rust reward compiles with (and the agent's CMD runs use): ``rustc``,
its sysroot, ``clippy-driver``, ``cargo``.

The sandbox sees none of the host's files, so the compiler cannot be the rustup proxy in
``~/.cargo/bin`` (it reads ``~/.rustup``): the reward runs the real ``rustc`` inside the toolchain's
sysroot and binds that one directory read-only into the sandbox. ``rustc --print sysroot`` is asked
once per process (per ``rustc`` and ``PATH``) and cached.

    from rusty_hf.rewards.rust.toolchain import find_toolchain
    toolchain = find_toolchain()           # RustToolchainError naming the fix when there is none
    toolchain.rustc, toolchain.sysroot, toolchain.clippy_driver, toolchain.version
    toolchain.bin_dir, toolchain.cargo     # <sysroot>/bin and the cargo in it, for the agent's CMD runs
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = (
    "install Rust with rustup (curl --proto '=https' -sSf https://sh.rustup.rs | sh, or see https://rustup.rs), "
    "then put ~/.cargo/bin on PATH (export PATH=\"$HOME/.cargo/bin:$PATH\"), or pass rustc='/path/to/rustc'"
)


class RustToolchainError(RuntimeError):
    """No usable ``rustc`` here; the message says where it looked and how to fix it."""


@dataclass(frozen=True)
class RustToolchain:
    """A working toolchain: the compiler to run in the sandbox and the directory it needs."""

    rustc: str  # the real compiler (``<sysroot>/bin/rustc`` when it exists), not a rustup proxy
    sysroot: str  # bound read-only into the sandbox
    target_libdir: str  # the host target's libstd.so, which dynamically linked test binaries load
    clippy_driver: str | None  # a drop-in rustc that also runs clippy's lints; None when not installed
    version: str  # ``rustc -V``; part of the reward cache key, so an upgrade never serves stale scores
    cargo: str | None = None  # ``<sysroot>/bin/cargo`` (rustup toolchains ship one); None when not there

    @property
    def bin_dir(self) -> str:
        """``<sysroot>/bin``: the real rustc, cargo, rustfmt, clippy-driver (never rustup's proxies)."""
        return os.path.join(self.sysroot, "bin")


def _candidates(rustc: str | None) -> list[str]:
    if rustc is not None:
        return [rustc]  # an explicit choice is never silently replaced by another compiler
    found = [os.environ.get("RUSTC", ""), shutil.which("rustc") or ""]
    # rustup's default location, which non-login shells (cron, some launchers) leave off PATH.
    found.append(str(Path.home() / ".cargo" / "bin" / "rustc"))
    return [c for c in found if c]


def _ask(rustc: str, *args: str) -> str:
    done = subprocess.run([rustc, *args], capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        raise RustToolchainError(
            f"`{rustc} {' '.join(args)}` failed (exit {done.returncode}): {done.stderr.strip()[-300:]}; {INSTALL_HINT}"
        )
    return done.stdout.strip()


@functools.lru_cache(maxsize=16)
def _find(rustc: str | None, path_env: str, home: str) -> RustToolchain:
    tried = _candidates(rustc)
    usable = [c for c in tried if os.path.isfile(c) and os.access(c, os.X_OK)]
    if not usable:
        where = ", ".join(tried) if tried else "$RUSTC, PATH"
        raise RustToolchainError(f"rustc not found (looked at: {where}); {INSTALL_HINT}")
    try:
        sysroot = os.path.realpath(_ask(usable[0], "--print", "sysroot"))
        version = _ask(usable[0], "-V")
        libdir = os.path.realpath(_ask(usable[0], "--print", "target-libdir"))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RustToolchainError(f"could not run {usable[0]}: {exc}; {INSTALL_HINT}") from exc
    real, clippy, cargo = (os.path.join(sysroot, "bin", name) for name in ("rustc", "clippy-driver", "cargo"))
    return RustToolchain(
        rustc=real if os.access(real, os.X_OK) else os.path.realpath(usable[0]),
        sysroot=sysroot,
        target_libdir=libdir,
        clippy_driver=clippy if os.access(clippy, os.X_OK) else None,
        version=version,
        cargo=cargo if os.access(cargo, os.X_OK) else None,
    )


def find_toolchain(rustc: str | None = None) -> RustToolchain:
    """Locate ``rustc`` (``rustc`` argument, else ``$RUSTC``, ``PATH``, ``~/.cargo/bin``) and its sysroot.

    Raises:
        RustToolchainError: no working ``rustc``; the message names the fix.
    """
    return _find(rustc, os.environ.get("PATH", ""), str(Path.home()))
