"""The workspace against hostile EDITs and CMDs: nothing reaches the host's version control or environments.

The two attacks a probe found: an EDIT of ``.git/config`` with an ``fsmonitor`` hook (run on the host
at the user's next ``git status``), and a CMD that printed a forged change list and killed the real
snapshot so the host wrote ``.git/config`` and ``.venv/bin/activate``. Since then the host reads the
run's work dir back itself and refuses excluded folders and non-files for every write.
"""

import os
import subprocess

import pytest

from rusty_hf.agent.workspace import CommandRefused, PathRefused, Workspace, WorkspaceTooBig
from rusty_hf.sandbox import Limits, capabilities

HOOK = '[core]\n\tfsmonitor = "touch {flag}; false"\n'


@pytest.fixture
def repo(tmp_path):
    """A workspace that is a real git repository with a virtual environment's activate script."""
    root = tmp_path / "work"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".venv/bin").mkdir(parents=True)
    (root / ".venv/bin/activate").write_text("# activate\n")
    (root / "main.py").write_text("print('hi')\n")
    return root


def _host_state(root) -> dict[str, bytes]:
    return {p: open(os.path.join(root, p), "rb").read() for p in (".git/config", ".venv/bin/activate")}


def _git_status_runs_no_hook(root, flag) -> bool:
    subprocess.run(["git", "-C", str(root), "status", "--short"], capture_output=True, check=False)
    return not os.path.exists(flag)


@pytest.mark.parametrize(
    "path", [".git/config", ".GIT/config", "./.git/hooks/pre-commit", "sub/.git/config", ".venv/bin/activate",
             "a/../.git/config", "node_modules/x/index.js", ".hg/hgrc"],
)  # fmt: skip
def test_edit_into_version_control_or_environments_is_refused(repo, tmp_path, path):
    ws = Workspace(repo)
    before = _host_state(repo)
    flag = tmp_path / "pwned"
    with pytest.raises(PathRefused, match="off limits"):
        ws.write_file(path, HOOK.format(flag=flag))
    assert _host_state(repo) == before and _git_status_runs_no_hook(repo, flag)


def test_a_command_writing_git_config_in_its_copy_changes_nothing_on_the_host(repo, tmp_path):
    ws = Workspace(repo)
    before = _host_state(repo)
    flag = tmp_path / "pwned"
    hook = HOOK.format(flag=flag)
    script = f"printf '{hook}' > .git/config; mkdir -p sub/.git .venv/bin .GIT && printf '{hook}' > sub/.git/config"
    result = ws.run(script + f" && printf '{hook}' > .GIT/config && echo evil > .venv/bin/activate && echo ok > new.txt")
    assert result.returncode == 0 and result.changed == ["new.txt", "sub/"]  # the folder it made, not what is in .git
    assert _host_state(repo) == before and not (repo / "sub/.git").exists() and not (repo / ".GIT").exists()
    assert _git_status_runs_no_hook(repo, flag)


FORGE = r"""
import base64, json, os, signal, sys
# The old guard: a per-run marker read from the snapshot's command line, visible in /proc.
marker = ""
for pid in os.listdir("/proc"):
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        continue
    marker = next((a.decode() for a in argv if a.startswith(b"rusty-workspace-")), marker)
forged = {".git/config": HOOK, ".venv/bin/activate": "touch FLAG\n", "main.py": "print('forged')\n"}
changed = {k: base64.b64encode(v.encode()).decode() for k, v in forged.items()}
sys.stdout.write("\n" + (marker or "rusty-workspace-0") + "\n" + json.dumps({"rc": 0, "changed": changed, "deleted": []}) + "\n")
sys.stdout.flush()
os.kill(-1, signal.SIGKILL)
"""


def test_a_forged_change_list_and_a_killed_snapshot_write_nothing(repo, tmp_path):
    ws = Workspace(repo)
    before = _host_state(repo)
    flag = tmp_path / "pwned"
    program = FORGE.replace("HOOK", repr(HOOK.format(flag=flag))).replace("FLAG", str(flag))
    ws.write_file("forge.py", program)
    result = ws.run("python3 forge.py")
    assert "rusty-workspace" in result.output  # it printed its forgery...
    assert result.changed == [] and result.deleted == []  # ...and the host took none of it
    assert _host_state(repo) == before and (repo / "main.py").read_text() == "print('hi')\n"
    assert _git_status_runs_no_hook(repo, flag)


def test_symlinks_fifos_and_hard_links_a_command_leaves_are_not_followed(repo, tmp_path):
    ws = Workspace(repo)
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    result = ws.run(f"ln -s {secret} link.txt; ln -s /etc out; mkfifo pipe; ln main.py hard.py; echo ok > real.txt")
    assert sorted(result.changed) == ["hard.py", "real.txt"]
    assert not (repo / "link.txt").exists() and not (repo / "out").exists() and not (repo / "pipe").exists()
    assert secret.read_text() == "host secret\n"


def test_a_folder_made_where_the_host_has_a_symlink_is_refused(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, repo / "link")  # the command's copy has no link (links are never copied in)
    result = Workspace(repo).run("mkdir -p link/inner")
    assert result.note and "not applied" in result.note and "link/" in result.note
    assert list(outside.iterdir()) == [] and (repo / "link").is_symlink()


def test_an_edit_replaces_a_hard_link_instead_of_writing_through_it(repo, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    os.link(outside, repo / "linked.txt")
    Workspace(repo).write_file("linked.txt", "new\n")
    assert outside.read_text() == "keep\n" and (repo / "linked.txt").read_text() == "new\n"


def test_an_edit_keeps_an_existing_files_mode(repo):
    script = repo / "run.sh"
    script.write_text("echo 1\n")
    script.chmod(0o755)
    Workspace(repo).write_file("run.sh", "echo 2\n")
    assert script.stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("kind", ["symlink_inside", "fifo", "symlink_dir"])
def test_edits_onto_non_files_are_refused_without_blocking(repo, kind):
    if kind == "symlink_inside":
        os.symlink("main.py", repo / "alias.py")
        path = "alias.py"
    elif kind == "fifo":
        os.mkfifo(repo / "pipe")
        path = "pipe"
    else:
        (repo / "real").mkdir()
        os.symlink("real", repo / "dirlink")
        path = "dirlink/x.py"
    with pytest.raises(PathRefused):
        Workspace(repo).write_file(path, "x")


def test_deep_trees_and_file_floods_are_refused_as_a_whole(repo):
    ws = Workspace(repo)
    deep = ws.run("for i in $(seq 80); do mkdir d && cd d || exit 1; done; echo x > f; echo ok > top.txt")
    assert deep.changed == [] and "deeper than" in deep.note
    flood = ws.run("mkdir many && cd many && seq 1 51000 | xargs touch")
    assert flood.changed == [] and "files and directories" in flood.note
    assert not (repo / "top.txt").exists() and not (repo / "many").exists()


def test_a_command_that_overfills_its_work_dir_keeps_nothing(repo):
    ws = Workspace(repo, limits=Limits(disk_mb=4, output_bytes=1 << 20))
    result = ws.run("head -c 3000000 /dev/zero > a.bin; head -c 3000000 /dev/zero > b.bin; echo done")
    assert result.changed == [] and "not kept" in result.note and not (repo / "a.bin").exists()


def test_a_command_with_a_nul_character_is_refused_clearly(repo):
    with pytest.raises(CommandRefused, match="NUL"):
        Workspace(repo).run("echo a\x00b")


def test_a_workspace_past_its_size_limit_names_the_fix(repo):
    (repo / "big.bin").write_bytes(b"\0" * (2 << 20))
    with pytest.raises(WorkspaceTooBig, match="--workdir"):
        Workspace(repo, limits=Limits(disk_mb=1)).run("ls")


@pytest.mark.skipif(not capabilities().cgroups.available, reason="needs the sandbox's memory cgroup")
def test_filling_the_work_dir_hits_the_memory_cap_not_the_host_disk(repo):
    ws = Workspace(repo, limits=Limits(disk_mb=64, memory_mb=128, output_bytes=1 << 20), timeout=20)
    result = ws.run("i=0; while [ $i -lt 40 ]; do head -c 16000000 /dev/zero > f$i.bin || exit 7; i=$((i+1)); done")
    assert result.changed == [] and result.note is not None
    assert sorted(os.listdir(repo)) == [".git", ".venv", "main.py"]


@pytest.mark.skipif(not capabilities().bwrap, reason="the read-only .git bind needs bubblewrap")
def test_git_reads_the_history_and_cannot_change_the_repository(repo):
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "-C", str(repo), "add", "main.py"], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "add main"], check=True, env={**os.environ, **env})
    before = {p: (repo / ".git" / p).read_bytes() for p in ("HEAD", "config", "index")}
    ws = Workspace(repo)
    assert "add main" in ws.run("git log --oneline").output
    result = ws.run("git config core.fsmonitor 'touch /tmp/x'; echo x > .git/HEAD; git commit --allow-empty -m y")
    assert "Read-only file system" in result.output and result.changed == []
    assert {p: (repo / ".git" / p).read_bytes() for p in ("HEAD", "config", "index")} == before
