"""The user's Rust toolchain inside the agent's CMD runs: ``cargo``, ``rustc``, ``rustfmt``, clippy.

A CMD runs in :mod:`rusty_hf.sandbox`, which sees no host home, so rustup's proxies in
``~/.cargo/bin`` (they read ``~/.rustup``) cannot work there. Like the Rust reward, a run instead
gets the real toolchain found by :func:`rusty_hf.rewards.rust.toolchain.find_toolchain`: its sysroot
bound read-only at the same path, ``<sysroot>/bin`` first on ``PATH``, a ``CARGO_HOME`` of its own
in the run's private, writable ``$TMPDIR`` (so cargo never needs ``~/.cargo``) and
``CARGO_NET_OFFLINE=true`` (the sandbox has no network; cargo then fails fast on a missing
dependency instead of retrying the registry). Nothing else of the host becomes visible.

    from rusty_hf.agent.toolchain import find_command_toolchain
    tools = find_command_toolchain()        # None when this machine has no Rust: runs stay as they were
    run(["/bin/sh", "-c", tools.prelude + script, ...], ro_paths=tools.ro_paths, env={**tools.env, ...})
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass

from rusty_hf.rewards.rust.toolchain import RustToolchain, RustToolchainError, find_toolchain

logger = logging.getLogger(__name__)

# cargo's home inside the run's $TMPDIR. Without bubblewrap $TMPDIR is the run's work dir, so the
# workspace leaves a directory of this name out of what it copies back.
CARGO_HOME_DIR = ".rusty-cargo-home"
_reported: set[str] = set()  # "no toolchain" reasons already logged: one line per process, not per command


@dataclass(frozen=True)
class CommandToolchain:
    """What a sandboxed shell command needs to use ``toolchain``: a read-only bind, environment, a prelude."""

    toolchain: RustToolchain

    @property
    def ro_paths(self) -> tuple[str, ...]:
        """The sysroot: compilers, cargo, the standard library; bound read-only."""
        return (self.toolchain.sysroot,)

    @property
    def env(self) -> dict[str, str]:
        """Fixed environment for the run (what depends on the run's own paths is in ``prelude``)."""
        return {"CARGO_NET_OFFLINE": "true"}

    @property
    def prelude(self) -> str:
        """Shell run before the command: ``PATH`` and ``CARGO_HOME`` built from the run's own values."""
        # $TMPDIR, not a fixed path: under bwrap it is the run's private /tmp, without bwrap its work
        # dir; the host's shared /tmp would let runs (each its own uid) see or block each other.
        home = f'"$TMPDIR"/{CARGO_HOME_DIR}'
        return f'export PATH={shlex.quote(self.toolchain.bin_dir)}:"$PATH" CARGO_HOME={home}; '


def find_command_toolchain(rustc: str | None = None) -> CommandToolchain | None:
    """The toolchain for CMD runs (``rustc`` as :func:`find_toolchain` takes it), or None when there is none."""
    try:
        return CommandToolchain(find_toolchain(rustc))
    except RustToolchainError as exc:
        if str(exc) not in _reported:
            _reported.add(str(exc))
            logger.info("CMD runs get no Rust toolchain (cargo/rustc will be 'not found'): %s", exc)
        return None
