"""rusty_hf.sandbox.readback: the host reads a run's work dir without following anything the run left."""

import os

import pytest

from rusty_hf.sandbox.readback import read_back


def test_regular_files_come_back_and_skipped_dirs_do_not(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.py").write_bytes(b"x = 1\n")
    (tmp_path / ".GIT").mkdir()
    (tmp_path / ".GIT/config").write_text("[core]")
    files, problem = read_back(str(tmp_path), skip_dirs={".git"}, max_bytes=1 << 20)
    assert problem is None and files == {"src/a.py": b"x = 1\n"}


def test_folders_come_back_empty_ones_too_and_skipped_ones_not(tmp_path):
    (tmp_path / "docs/old").mkdir(parents=True)
    (tmp_path / ".git/objects").mkdir(parents=True)
    (tmp_path / "f.txt").write_text("x")
    folders: set[str] = set()
    files, problem = read_back(str(tmp_path), skip_dirs={".git"}, max_bytes=1 << 20, folders=folders)
    assert problem is None and files == {"f.txt": b"x"} and folders == {"docs", "docs/old"}


def test_links_fifos_and_undecodable_names_are_skipped(tmp_path):
    secret = tmp_path.parent / "secret-readback.txt"
    secret.write_text("host")
    os.symlink(secret, tmp_path / "link")
    os.symlink(tmp_path.parent, tmp_path / "dirlink")
    os.mkfifo(tmp_path / "fifo")
    open(os.path.join(os.fsencode(tmp_path), b"bad\xff"), "wb").close()
    files, problem = read_back(str(tmp_path), max_bytes=1 << 20)
    assert problem is None and files == {}


@pytest.mark.parametrize("cap", ["bytes", "entries", "depth"])
def test_a_tree_over_a_cap_gives_none_and_the_reason(tmp_path, cap):
    if cap == "bytes":
        (tmp_path / "big").write_bytes(b"0" * 2000)
    elif cap == "entries":
        for i in range(20):
            (tmp_path / f"f{i}").touch()
    else:
        (tmp_path / "a/b/c/d").mkdir(parents=True)
    files, problem = read_back(str(tmp_path), max_bytes=1000, max_entries=10, max_depth=3)
    assert files is None and problem
