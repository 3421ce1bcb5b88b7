"""rusty_hf.agent.workspace: EDIT paths stay inside the work dir; CMDs run sandboxed and persist their files."""

import os

import pytest

from rusty_hf.agent.workspace import PathRefused, Workspace
from rusty_hf.sandbox import capabilities


@pytest.fixture
def ws(tmp_path):
    return Workspace(tmp_path / "work", timeout=10)


def test_write_file_creates_parents(ws):
    target = ws.write_file("src/pkg/mod.py", "x = 1\n")
    assert target == ws.root / "src/pkg/mod.py"
    assert target.read_text() == "x = 1\n"


@pytest.mark.parametrize("path", ["/etc/passwd", "../evil.txt", "a/../../evil.txt", "~/evil.txt", "", "."])
def test_escaping_paths_are_refused(ws, path):
    with pytest.raises(PathRefused, match="refused path"):
        ws.write_file(path, "pwned")
    assert not (ws.root.parent / "evil.txt").exists()


def test_dotdot_that_stays_inside_is_allowed(ws):
    assert ws.write_file("a/../b.txt", "ok").read_text() == "ok"


def test_symlink_leaving_the_root_is_refused(ws, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, ws.root / "link")
    with pytest.raises(PathRefused, match="symlink"):
        ws.write_file("link/evil.txt", "pwned")
    assert list(outside.iterdir()) == []


def test_dangling_symlink_to_outside_is_refused(ws, tmp_path):
    os.symlink(tmp_path / "not-yet", ws.root / "trap.txt")
    with pytest.raises(PathRefused, match="symlink"):
        ws.write_file("trap.txt", "pwned")
    assert not (tmp_path / "not-yet").exists()


def test_command_sees_files_and_its_changes_persist(ws):
    ws.write_file("a.txt", "hello\n")
    result = ws.run("cat a.txt; echo more >> a.txt; mkdir -p d && echo new > d/b.txt; rm -f gone.txt")
    assert result.returncode == 0 and result.output == "hello\n"
    assert sorted(result.changed) == ["a.txt", "d/b.txt"]
    assert (ws.root / "a.txt").read_text() == "hello\nmore\n"
    assert (ws.root / "d/b.txt").read_text() == "new\n"


@pytest.mark.skipif(not capabilities().bwrap, reason="the sandbox names the run's uid under bubblewrap only")
def test_commands_run_as_a_uid_named_sandbox_whatever_uid_each_run_gets(ws):
    """A reference run's `ls -l` is the same from run to run (the SFT rows are built from them)."""
    ws.write_file("a.txt", "x")
    first, second = ws.run("ls -l a.txt").output, ws.run("ls -l a.txt").output
    assert first == second and first.split()[2:4] == ["sandbox", "sandbox"]


def test_a_command_sees_the_times_the_work_dir_has(ws):
    """`ls -l` answers "when was it last changed" with the user's times, not the copy's."""
    ws.write_file("docs/old.txt", "x")
    for path, day in (("docs/old.txt", 1_600_000_000), ("docs", 1_600_000_060), (".", 1_600_000_120)):
        os.utime(ws.root / path, (day, day))
    assert ws.run("stat -c '%Y %n' docs/old.txt docs .").output.splitlines()[:3] == [
        "1600000000 docs/old.txt", "1600000060 docs", "1600000120 ."]
    ws.run("echo y > new.txt")
    assert ws.run("stat -c %Y docs/old.txt").output.startswith("1600000000")  # a later run: still the user's time


def test_command_deletions_persist(ws):
    ws.write_file("old.txt", "x")
    result = ws.run("rm old.txt")
    assert result.deleted == ["old.txt"] and not (ws.root / "old.txt").exists()


def test_folders_a_command_makes_or_removes_persist_and_empty_ones_are_seen(ws):
    ws.write_file("build/out.log", "x")
    (ws.root / "empty").mkdir()
    result = ws.run("ls; mkdir -p docs/notes; rm -rf build")
    assert result.output.split() == ["build", "empty"]  # the empty folder is in the command's copy too
    assert (ws.root / "docs/notes").is_dir() and not (ws.root / "build").exists() and (ws.root / "empty").is_dir()
    assert result.changed == ["docs/", "docs/notes/"] and result.deleted == ["build/out.log", "build/"]
    assert ws.run("rmdir empty").deleted == ["empty/"] and not (ws.root / "empty").exists()


def test_a_trial_changes_nothing_and_applied_to_a_copy_gives_what_run_gives(ws, tmp_path):
    """`trial` runs as `run` does and leaves the work dir alone; `apply` on another work dir holding the same files
    (a copy) then gives the result and the files `run` gives there."""
    ws.write_file("a.txt", "hello\n")
    ws.write_file("old/x.txt", "x\n")
    command = "cat a.txt; echo more >> a.txt; mkdir -p d && echo new > d/b.txt; rm -r old"
    trial = ws.trial(command)
    assert not trial.changes_nothing and ws.tree() == trial.before
    assert (ws.root / "a.txt").read_text() == "hello\n" and not (ws.root / "d").exists()

    copy, twin = Workspace(tmp_path / "copy", timeout=10), Workspace(tmp_path / "twin", timeout=10)
    for w in (copy, twin):
        w.write_file("a.txt", "hello\n")
        w.write_file("old/x.txt", "x\n")
    applied, ran = copy.apply(trial), twin.run(command)
    assert (applied.output, applied.returncode, applied.changed, applied.deleted) == (
        ran.output, ran.returncode, ran.changed, ran.deleted)
    assert applied.changed == ["a.txt", "d/b.txt"] and applied.deleted == ["old/x.txt", "old/"]
    assert copy.tree() == twin.tree() == trial.after


def test_a_read_is_a_trial_that_changes_nothing(ws):
    ws.write_file("a.txt", "hello\n")
    trial = ws.trial("wc -l a.txt; ls")
    assert trial.changes_nothing and trial.result.output == "1 a.txt\na.txt\n" and trial.after == trial.before


def test_exit_code_and_stderr_are_reported(ws):
    result = ws.run("echo oops >&2; exit 3")
    assert result.returncode == 3 and "oops" in result.output
    assert "[exit code 3]" in result.describe()


@pytest.mark.skipif(not capabilities().bwrap, reason="a command is kept out of the host filesystem by bubblewrap alone")
def test_command_cannot_write_outside_the_workspace(ws, tmp_path):
    result = ws.run(f"echo pwned > {tmp_path}/evil.txt; echo pwned > ../evil.txt; true")
    assert not (tmp_path / "evil.txt").exists()
    assert result.changed == []


def test_timed_out_command_keeps_no_changes(ws):
    ws.timeout = 1.0
    result = ws.run("touch made.txt; sleep 30")
    assert result.timed_out and "not kept" in result.note
    assert not (ws.root / "made.txt").exists()


def test_empty_command_is_rejected(ws):
    with pytest.raises(ValueError, match="non-empty shell command"):
        ws.run("   ")


def test_undo_puts_back_a_whole_step_of_edits_and_command_changes(ws):
    ws.write_file("keep.txt", "mine\n")
    ws.write_file("old.txt", "old\n")
    (ws.root / "keep.txt").chmod(0o755)
    ws.begin_change()  # one request: an EDIT over a file, then a command that deletes, appends and creates
    ws.write_file("keep.txt", "overwritten\n")
    result = ws.run("rm old.txt; echo more >> keep.txt; mkdir -p d && echo new > d/made.txt")
    assert result.deleted == ["old.txt"] and sorted(result.changed) == ["d/made.txt", "keep.txt"]
    assert ws.undo() == ["d/", "d/made.txt", "keep.txt", "old.txt"]
    assert (ws.root / "keep.txt").read_text() == "mine\n" and (ws.root / "old.txt").read_text() == "old\n"
    assert (ws.root / "keep.txt").stat().st_mode & 0o777 == 0o755  # a file put back keeps its mode
    assert not (ws.root / "d").exists()  # the folder the command made goes with its file
    assert ws.undo() == []  # the writes before the first step are the user's: nothing to undo


def test_undo_removes_the_folders_a_step_made_and_makes_again_those_it_removed(ws):
    ws.write_file("build/out.log", "x")
    (ws.root / "empty").mkdir()
    ws.begin_change()
    ws.run("mkdir -p docs/notes; rm -rf build; rmdir empty")
    ws.write_file("src/pkg/a.py", "pass\n")  # an EDIT makes its parent folders too
    assert ws.undo() == ["build/", "build/out.log", "docs/", "docs/notes/", "empty/", "src/", "src/pkg/", "src/pkg/a.py"]
    assert sorted(p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*")) == ["build", "build/out.log", "empty"]
    assert (ws.root / "build/out.log").read_text() == "x"
    ws.begin_change()
    ws.run("mkdir logs")
    (ws.root / "logs/mine.txt").write_text("the user's")  # written by hand after the step: the folder stays
    assert ws.undo() == ["logs/ (not put back: it holds what this step did not make)"]
    assert (ws.root / "logs/mine.txt").read_text() == "the user's"


def test_undo_goes_back_one_step_at_a_time_and_skips_steps_without_changes(ws):
    ws.begin_change()
    ws.write_file("a.txt", "1")
    ws.begin_change()
    ws.write_file("a.txt", "2")
    ws.begin_change()  # a request that changed nothing (a MSG) is not a step to undo
    assert ws.undo() == ["a.txt"] and (ws.root / "a.txt").read_text() == "1"
    assert ws.undo() == ["a.txt"] and not (ws.root / "a.txt").exists()
    assert ws.undo() == []


def test_undo_reports_a_path_it_cannot_put_back_and_restores_the_rest(ws, tmp_path):
    ws.write_file("a.txt", "a0")
    ws.write_file("sub/b.txt", "b0")
    ws.begin_change()
    ws.write_file("a.txt", "a1")
    ws.write_file("sub/b.txt", "b1")
    (ws.root / "sub/b.txt").unlink()
    (ws.root / "sub").rmdir()
    (ws.root / "sub").symlink_to(tmp_path)  # the folder is now a link out of the work dir: never written through
    undone = ws.undo()
    assert undone[0] == "a.txt" and undone[1].startswith("sub/b.txt (not put back: ")
    assert (ws.root / "a.txt").read_text() == "a0" and not (tmp_path / "b.txt").exists()


def test_a_run_that_loses_data_is_applied_only_when_approved(ws):
    """`approve` sees what a run would delete and which files it would rewrite losing their old bytes; declined, none
    of the run's changes is kept (not the new file beside the deletion either)."""
    ws.write_file("notes.txt", "buy eggs\nwater plants\n")
    ws.write_file("old.log", "x\n")
    asked = []

    def no(deleted, rewritten):
        asked.append((deleted, rewritten))
        return False

    out = ws.run("rm old.log && sed -i 's/eggs/milk/' notes.txt && echo new > new.txt", approve=no)
    assert asked == [(["old.log"], ["notes.txt"])]
    assert "not kept: the user did not approve" in out.describe()
    assert (ws.root / "old.log").exists() and (ws.root / "notes.txt").read_text() == "buy eggs\nwater plants\n"
    assert not (ws.root / "new.txt").exists() and out.changed == out.deleted == []
    out = ws.run("echo gone > notes.txt", approve=lambda deleted, rewritten: rewritten == ["notes.txt"])
    assert (ws.root / "notes.txt").read_text() == "gone\n" and out.changed == ["notes.txt"]


def test_appending_or_writing_a_new_file_asks_nothing(ws):
    ws.write_file("notes.txt", "buy eggs\n")

    def never(deleted, rewritten):
        raise AssertionError(f"asked about {deleted} {rewritten}")

    ws.run("echo 'water plants' >> notes.txt && echo hi > fresh.txt && : > empty.txt", approve=never)
    assert (ws.root / "notes.txt").read_text() == "buy eggs\nwater plants\n"
    assert (ws.root / "fresh.txt").read_text() == "hi\n" and (ws.root / "empty.txt").exists()


def test_what_a_declined_run_made_or_deleted_stays_as_it_was_and_empty_files_ask_nothing(ws):
    ws.write_file("data.bin", b"\x00\x01\x02")
    ws.write_file("empty.txt", "")
    asked = []
    out = ws.run("mkdir made && printf '\\003' > data.bin", approve=lambda d, r: asked.append((d, r)) or False)
    assert asked == [([], ["data.bin"])] and "not kept" in out.describe()
    assert not (ws.root / "made").exists() and (ws.root / "data.bin").read_bytes() == b"\x00\x01\x02"
    ws.run("rm empty.txt", approve=lambda d, r: pytest.fail(f"asked about {d} {r}"))  # nothing in it to lose
    assert not (ws.root / "empty.txt").exists()


def test_a_run_approved_after_the_work_dir_changed_is_not_applied(ws):
    """The run saw the files as they were before the question: edited by hand meanwhile, its changes would undo the
    edit, so none is applied."""
    ws.write_file("notes.txt", "buy eggs\n")

    def edit_then_yes(deleted, rewritten):
        (ws.root / "notes.txt").write_text("buy eggs\ncall mum\n")
        return True

    out = ws.run("rm notes.txt", approve=edit_then_yes)
    assert "changed while the user was asked" in out.describe()
    assert (ws.root / "notes.txt").read_text() == "buy eggs\ncall mum\n"
