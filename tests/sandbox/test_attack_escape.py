"""Attacks on the host: network, secret files, writes and deletions outside the work dir."""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path

from attack_harness import attack, require_layers

REPO = Path(__file__).resolve().parents[2]


def test_network_connect_to_host_loopback_fails():
    require_layers("network connect", "netns")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.setblocking(False)
        port = server.getsockname()[1]
        code = (
            "import socket\n"
            f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=1).sendall(b'LEAK')\n"
            "    print('CONNECTED')\n"
            "except OSError as exc:\n    print('refused', type(exc).__name__)\n"
        )
        result = attack(code, timeout=5.0)
        assert "refused" in result.stdout and "CONNECTED" not in result.stdout
        try:
            server.accept()
            raise AssertionError("the sandboxed program reached the host's loopback listener")
        except BlockingIOError:
            pass


def test_network_connect_to_external_address_fails():
    # 1.1.1.1:53 is the one documented external address: the sandbox must refuse it, not reach it.
    require_layers("network connect", "netns")
    code = (
        "import socket\n"
        "try:\n    socket.create_connection(('1.1.1.1', 53), timeout=1)\n    print('CONNECTED')\n"
        "except OSError as exc:\n    print('refused', type(exc).__name__)\n"
    )
    result = attack(code, timeout=5.0)
    assert "refused" in result.stdout and "CONNECTED" not in result.stdout


def test_reading_etc_shadow_and_ssh_keys_fails(tmp_path):
    require_layers("host file read", "bwrap-fs", "own-uid")
    ssh = tmp_path / "home" / ".ssh"
    ssh.mkdir(parents=True)
    ssh.chmod(0o700)
    secret = "DECOY-PRIVATE-KEY-" + os.urandom(8).hex()
    (ssh / "id_ed25519").write_text(secret)
    (ssh / "id_ed25519").chmod(0o600)
    targets = ["/etc/shadow", str(ssh / "id_ed25519"), "/root/.ssh/id_rsa", "~/.ssh/id_ed25519"]
    code = (
        "import os\n"
        f"for path in {targets!r}:\n"
        "    try:\n        print('READ', path, open(os.path.expanduser(path)).read())\n"
        "    except OSError as exc:\n        print('denied', path, type(exc).__name__)\n"
    )
    result = attack(code, timeout=5.0)
    assert "READ" not in result.stdout and secret not in result.stdout
    assert result.stdout.count("denied") == len(targets)


def test_writing_outside_the_work_dir_fails(tmp_path):
    require_layers("write outside work dir", "bwrap-fs")
    outside = tmp_path / "outside.txt"
    via_link = tmp_path / "via_link.txt"
    host_tmp = Path("/tmp") / f"rusty-escape-{os.urandom(6).hex()}"
    code = (
        "import os\n"
        f"attempts = {{'absolute': {str(outside)!r}, 'dotdot': '../../escape.txt', 'tmp': {str(host_tmp)!r}}}\n"
        f"os.symlink({str(via_link)!r}, 'link')\n"
        "attempts['symlink'] = 'link'\n"
        "for name, path in attempts.items():\n"
        "    try:\n        open(path, 'w').write('ESCAPED')\n        print('wrote', name)\n"
        "    except OSError as exc:\n        print('denied', name, type(exc).__name__)\n"
    )
    result = attack(code, timeout=5.0)
    assert not outside.exists() and not via_link.exists() and not host_tmp.exists()
    assert not Path("/escape.txt").exists() and not Path("/tmp/escape.txt").exists()
    # /tmp inside the sandbox is private and writable; the host's /tmp path must stay untouched.
    assert "wrote absolute" not in result.stdout and "wrote symlink" not in result.stdout


def test_deleting_project_files_fails(tmp_path):
    require_layers("delete project files", "bwrap-fs", "own-uid")
    copy = tmp_path / "project_copy" / "pyproject.toml"
    copy.parent.mkdir()
    copy.write_bytes((REPO / "pyproject.toml").read_bytes())
    repo_files = [REPO / "pyproject.toml", Path(__file__)]
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in [copy, *repo_files]}
    backups = {p: (p.read_bytes(), p.stat().st_mode) for p in repo_files}
    code = (
        "import os, shutil\n"
        f"for path in {[str(p) for p in [copy, *repo_files]]!r}:\n"
        "    for action in (os.remove, lambda p: open(p, 'w').close(), lambda p: os.chmod(p, 0)):\n"
        "        try:\n            action(path)\n            print('DAMAGED', path)\n"
        "        except OSError as exc:\n            print('denied', type(exc).__name__)\n"
        f"shutil.rmtree({str(copy.parent)!r}, ignore_errors=True)\n"
    )
    try:
        result = attack(code, timeout=5.0)
        after = {p: hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in before}
        assert after == before and "DAMAGED" not in result.stdout
    finally:  # never leave the repository damaged, even if the sandbox failed
        for path, (content, mode) in backups.items():
            if not path.exists() or path.read_bytes() != content:
                path.write_bytes(content)
            if path.stat().st_mode != mode:
                os.chmod(path, mode)
