"""rusty_hf.agent.workspace + .toolchain: CMD runs see the user's Rust toolchain, read-only, and no more."""

import os
import subprocess
from pathlib import Path

import pytest

import rusty_hf.agent.toolchain as toolchain_module
import rusty_hf.agent.workspace as workspace_module
from rusty_hf.agent.toolchain import CARGO_HOME_DIR, CommandToolchain
from rusty_hf.agent.workspace import Workspace
from rusty_hf.rewards.rust.toolchain import RustToolchain, RustToolchainError, find_toolchain
from rusty_hf.sandbox import capabilities

CARGO_TOML = '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n'
LIB_RS = """pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

#[test]
fn adds_two_numbers() {
    assert_eq!(add(2, 3), 5);
}
"""


@pytest.fixture(scope="module")
def toolchain() -> RustToolchain:
    try:
        found = find_toolchain()
    except RustToolchainError as exc:
        pytest.skip(f"no Rust toolchain on this machine: {exc}")
    if found.cargo is None:
        pytest.skip(f"the toolchain at {found.sysroot} has no cargo in {found.bin_dir}")
    return found


@pytest.fixture
def ws(tmp_path, toolchain) -> Workspace:
    return Workspace(tmp_path / "work", timeout=60)  # the first run of a session also probes the sandbox


@pytest.fixture
def sandbox_calls(monkeypatch) -> list[dict]:
    """The keyword arguments of every sandbox run the workspace makes (the runs themselves still happen)."""
    calls: list[dict] = []
    real_run = workspace_module.run

    def spy(argv, **kwargs):
        calls.append({"argv": argv, **kwargs})
        return real_run(argv, **kwargs)

    monkeypatch.setattr(workspace_module, "run", spy)
    return calls


def test_cargo_test_of_a_tiny_crate_passes(ws, sandbox_calls, toolchain):
    ws.write_file("Cargo.toml", CARGO_TOML)
    ws.write_file("src/lib.rs", LIB_RS)
    result = ws.run("cargo test")
    assert result.returncode == 0, result.output
    assert "test adds_two_numbers ... ok" in result.output and "1 passed; 0 failed" in result.output
    # Build output and cargo's own home stay in the run; the lock file is the project's, as with cargo anywhere.
    assert result.changed == ["Cargo.lock"] and not (ws.root / "target").exists()
    assert sandbox_calls[0]["ro_paths"] == (toolchain.sysroot,)
    assert sandbox_calls[0]["env"]["CARGO_NET_OFFLINE"] == "true"


def test_rustc_and_cargo_are_the_bound_toolchains(ws, toolchain):
    result = ws.run('rustc --version; command -v rustc; command -v cargo; echo "home=$CARGO_HOME"')
    assert result.returncode == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == toolchain.version
    assert lines[1:3] == [os.path.join(toolchain.bin_dir, "rustc"), toolchain.cargo]
    assert lines[3].startswith("home=/") and lines[3].endswith(f"/{CARGO_HOME_DIR}")


def test_host_cargo_and_rustup_are_hidden_and_the_toolchain_is_read_only(ws, toolchain):
    if not capabilities().bwrap:
        pytest.skip("without bubblewrap the sandbox does not isolate the filesystem (see rusty_hf.sandbox)")
    home = Path.home()
    script = (
        f"ls -A {home}/.cargo >/dev/null 2>&1 && echo cargo-home-visible; "
        f"cat {home}/.rustup/settings.toml >/dev/null 2>&1 && echo rustup-settings-visible; "
        f"ls -A {home}/.rustup/toolchains 2>/dev/null; "
        f"test -w {toolchain.bin_dir} && echo sysroot-writable; "  # access(2): EROFS on a read-only bind
        "echo done"
    )
    result = ws.run(script)
    assert result.returncode == 0, result.output
    listed = set(result.output.split()) - {"done"}
    # Only the bound sysroot may show under ~/.rustup/toolchains (bwrap creates its parents, empty).
    under_rustup = Path(toolchain.sysroot).parent == home / ".rustup" / "toolchains"
    assert listed == ({Path(toolchain.sysroot).name} if under_rustup else set()), result.output


@pytest.mark.parametrize("how", ["no toolchain", "rust=False"])
def test_without_a_toolchain_commands_run_as_before_and_nothing_is_bound(tmp_path, monkeypatch, sandbox_calls, how):
    def missing(rustc=None):
        raise RustToolchainError("rustc not found (looked at: nowhere); install Rust with rustup")

    monkeypatch.setattr(toolchain_module, "find_toolchain", missing)
    ws = Workspace(tmp_path / "work", timeout=60, rust=how != "rust=False")
    result = ws.run('echo hi; echo "cargo_home=${CARGO_HOME-unset} offline=${CARGO_NET_OFFLINE-unset}"')
    assert ws.rust_toolchain is None
    assert result.returncode == 0 and result.output == "hi\ncargo_home=unset offline=unset\n"
    assert sandbox_calls[0]["ro_paths"] == () and sandbox_calls[0]["argv"] == ["/bin/sh", "-c", result.command]


def test_prelude_quotes_the_sysroot_and_builds_on_the_runs_own_paths():
    fake = RustToolchain("/opt/my rust/bin/rustc", "/opt/my rust", "/opt/my rust/lib", None, "rustc 1.0.0")
    tools = CommandToolchain(fake)
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": "/run tmp"}
    script = tools.prelude + 'printf "%s\\n" "$PATH" "$CARGO_HOME"'
    out = subprocess.run(["/bin/sh", "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["/opt/my rust/bin:/usr/bin:/bin", f"/run tmp/{CARGO_HOME_DIR}"]
    assert tools.ro_paths == ("/opt/my rust",)
