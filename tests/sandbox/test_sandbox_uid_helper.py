"""The compiled uid helper: the same identity as setpriv leaves, a clean descriptor table, the same exit
codes, a loud failure, and a build that never trusts a binary someone else could have written."""

from __future__ import annotations

import os
import re
import stat
import subprocess

import pytest
from attack_harness import require_mechanism

from rusty_hf.sandbox import SandboxError, run
from rusty_hf.sandbox import launch as sandbox_launch
from rusty_hf.sandbox.identity import build_uid_helper

IDENTITY = ["/bin/sh", "-c", 'grep -E "^(Uid|Gid|Groups|Cap|NoNewPrivs)" /proc/self/status']


@pytest.fixture
def helper_caps():
    return require_mechanism("uid_helper", "the compiled uid helper")


def _identity(caps) -> tuple[int, str]:
    result = run(IDENTITY, caps=caps)
    assert result.ok, result.stderr
    uid = int(re.search(r"^Uid:\s+(\d+)", result.stdout, re.MULTILINE)[1])
    assert re.search(rf"^Uid:\s+{uid}\s+{uid}\s+{uid}\s+{uid}$", result.stdout, re.MULTILINE), result.stdout
    return uid, result.stdout.replace(str(uid), "UID")  # each run has a uid of its own


@pytest.mark.parametrize("bwrap", [True, False])
def test_the_helper_leaves_what_setpriv_leaves(helper_caps, bwrap):
    caps = helper_caps if bwrap else helper_caps.without("bwrap")
    uid, with_helper = _identity(caps)
    _, with_setpriv = _identity(caps.without("uid-helper"))
    assert uid != 0 and with_helper == with_setpriv
    assert "CapBnd:\t0000000000000000" in with_helper and "Groups:\t" in with_helper


def test_the_command_gets_no_descriptor_but_stdio(helper_caps):
    result = run(["python3", "-c", "import os; print(sorted(int(f) for f in os.listdir('/proc/self/fd')))"],
                 caps=helper_caps)  # fmt: skip
    assert result.ok, result.stderr
    assert result.stdout.strip() == "[0, 1, 2, 3]"  # 3: the listing's own


def test_exit_codes_for_a_command_that_cannot_run_match_setpriv(helper_caps):
    for caps in (helper_caps, helper_caps.without("uid-helper")):
        assert run(["no-such-command-here"], caps=caps).returncode == 127
        assert run(["./data.txt"], files={"data.txt": "not a program"}, caps=caps).returncode == 126


def test_a_failed_switch_is_a_sandbox_error(helper_caps, monkeypatch):
    monkeypatch.setattr(sandbox_launch, "run_uid", lambda: 0)  # the helper refuses to "switch" to root
    with pytest.raises(SandboxError, match="could not switch uid"):
        run(["/bin/true"], caps=helper_caps)


def test_a_binary_others_could_write_is_rebuilt_not_used(tmp_path):
    if subprocess.run(["sh", "-c", "command -v cc"], capture_output=True, check=False).returncode != 0:
        pytest.skip("no C compiler here")
    cache = tmp_path / "cache"
    path, why = build_uid_helper(cache_dir=cache)
    assert path is not None, why
    os.chmod(path, 0o777)
    first_inode = os.stat(path).st_ino
    again, _ = build_uid_helper(cache_dir=cache)
    rebuilt = os.stat(path).st_ino
    assert again == path and rebuilt != first_inode
    assert not os.stat(path).st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    assert build_uid_helper(cache_dir=cache) == (path, None) and os.stat(path).st_ino == rebuilt  # now reused


def test_without_a_compiler_the_reason_is_given(tmp_path):
    path, why = build_uid_helper(cc=str(tmp_path / "no-cc"), cache_dir=tmp_path / "cache")
    assert path is None and "could not build the uid helper" in why
