"""rusty-terminal, driven in a real pseudo-terminal (pexpect) with a real (tiny, memorised) model.

One terminal process serves the module (starting one costs ~10 s of imports on a busy machine); the
tests run in file order, each starting a fresh conversation, and the last one quits it.
"""

import os
import sys

import pexpect
import pytest

from rusty_hf.agent.terminal import main
from tests.agent.conftest import ADD_SOLUTION, SYSTEM_PROMPT

pytestmark = pytest.mark.slow

PROMPT = "you> "


@pytest.fixture(scope="module")
def terminal(rusty_checkpoint, tmp_path_factory):
    """A running `python3 -m rusty_hf.agent.terminal` in a pty, one action per message."""
    root = tmp_path_factory.mktemp("terminal")
    workdir, history = root / "work", root / "history"
    workdir.mkdir()
    (workdir / "README.md").write_text("# demo\n")
    argv = ["-m", "rusty_hf.agent.terminal", "--model", str(rusty_checkpoint), "--workdir", str(workdir),
            "--history-file", str(history), "--system-prompt", SYSTEM_PROMPT, "--max-steps", "1"]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1"}
    child = pexpect.spawn(sys.executable, argv, env=env, encoding="utf-8", timeout=120, dimensions=(40, 200))
    child.expect_exact(PROMPT)
    yield child, workdir, history
    if child.isalive():
        child.terminate(force=True)


def _say(child, text: str) -> str:
    """Send a line, wait for the next prompt, and return what the terminal printed in between."""
    child.sendline(text)
    child.expect_exact(PROMPT)
    return child.before


def test_cmd_streams_the_action_and_runs_it_in_the_workdir(terminal):
    child, _, _ = terminal
    shown = _say(child, "list files")
    assert "rusty> $ ls" in shown and '{"action"' not in shown
    assert "README.md" in shown and "[exit code 0]" in shown


def test_dry_toggle_shows_the_cmd_without_running_it(terminal):
    child, _, _ = terminal
    assert "[dry-run on]" in _say(child, ":dry")
    _say(child, ":clear")
    shown = _say(child, "list files")
    assert "$ ls" in shown and "[dry run] not executed: ls" in shown and "README.md" not in shown
    assert "[dry-run off]" in _say(child, ":dry")


def test_undo_puts_back_the_file_the_last_reply_wrote(terminal):
    child, workdir, _ = terminal
    _say(child, ":clear")
    _say(child, "make notes")
    assert (workdir / "notes.txt").read_text() == "remember the milk"
    assert "[undone: notes.txt]" in _say(child, ":undo")
    assert not (workdir / "notes.txt").exists()  # the reply made it: undone, it is gone
    assert "[nothing to undo]" in _say(child, ":undo")


def test_edit_inside_the_workdir_is_written(terminal):
    child, workdir, _ = terminal
    _say(child, ":clear")
    assert "rusty> [edit notes.txt: 1 line]" in _say(child, "make notes")
    assert (workdir / "notes.txt").read_text() == "remember the milk"


def test_an_edit_that_rewrites_a_file_asks_first(terminal):
    child, workdir, _ = terminal
    _say(child, ":clear")
    (workdir / "solution.py").write_text("old = 1\n")
    child.sendline("write add")
    child.expect_exact("[edit solution.py rewrites solution.py. Apply? y/N] ")
    child.sendline("n")
    child.expect_exact(PROMPT)
    assert "did not approve rewriting solution.py" in child.before
    assert (workdir / "solution.py").read_text() == "old = 1\n"
    _say(child, ":clear")
    child.sendline("write add")
    child.expect_exact("Apply? y/N] ")
    child.sendline("y")
    child.expect_exact(PROMPT)
    assert (workdir / "solution.py").read_text() == ADD_SOLUTION
    (workdir / "solution.py").unlink()


def test_edit_leaving_the_workdir_is_refused_and_writes_nothing(terminal):
    child, workdir, _ = terminal
    _say(child, ":clear")
    shown = _say(child, "write evil")
    assert "[edit ../evil.txt: 1 line]" in shown and "refused path '../evil.txt'" in shown
    assert not (workdir.parent / "evil.txt").exists()
    assert sorted(p.name for p in workdir.iterdir()) == ["README.md", "notes.txt"]
    _say(child, ":clear")
    shown = _say(child, "hello")  # the session goes on after a refusal
    assert "rusty> Hi. What needs fixing?" in shown and '{"action"' not in shown  # a MSG reads as text


def test_quit_exits_zero_and_keeps_the_history_file(terminal):
    child, _, history = terminal
    child.sendline(":q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    lines = history.read_text().splitlines()
    assert lines[:3] == ["list files", ":dry", ":clear"] and lines[-3:] == [":clear", "hello", ":q"]


def test_missing_checkpoint_is_one_clear_error_on_stderr(tmp_path, capsys):
    assert main(["--model", str(tmp_path / "nope"), "--workdir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("rusty-terminal: no such folder:")
    assert "Traceback" not in captured.err and len(captured.err.strip().splitlines()) == 1
