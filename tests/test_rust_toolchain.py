"""Tests for rusty_hf/rewards/rust/toolchain.py: finding rustc, its sysroot and clippy, or saying how to get them."""

from __future__ import annotations

import os

import pytest

from rusty_hf.rewards.rust.compiler import compile_rust
from rusty_hf.rewards.rust.toolchain import RustToolchainError, find_toolchain


def test_found_toolchain_is_the_real_compiler_inside_its_sysroot():
    try:
        toolchain = find_toolchain()
    except RustToolchainError as exc:
        pytest.skip(str(exc))
    assert toolchain.rustc.startswith(toolchain.sysroot + os.sep) and os.access(toolchain.rustc, os.X_OK)
    assert toolchain.target_libdir.startswith(toolchain.sysroot) and toolchain.version.startswith("rustc ")
    assert toolchain.bin_dir == os.path.join(toolchain.sysroot, "bin")
    assert toolchain.cargo in (None, os.path.join(toolchain.bin_dir, "cargo"))  # the real cargo, never rustup's proxy


def test_explicit_missing_rustc_raises_naming_the_fix():
    with pytest.raises(RustToolchainError, match="rustup"):
        find_toolchain("/nonexistent/bin/rustc")


def test_no_rustc_on_path_raises_naming_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RUSTC", raising=False)
    with pytest.raises(RustToolchainError, match=r"\.cargo/bin on PATH"):
        compile_rust("pub fn f() {}")


def test_a_rustc_that_fails_to_run_raises_naming_the_fix(tmp_path):
    broken = tmp_path / "rustc"
    broken.write_text("#!/bin/sh\necho 'error: toolchain is not installed' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(RustToolchainError, match="toolchain is not installed.*rustup"):
        find_toolchain(str(broken))
