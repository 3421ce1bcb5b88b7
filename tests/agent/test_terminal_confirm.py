"""rusty-terminal's question before an action that loses data: who is asked, and what counts as a yes."""

import io

from rusty_hf.agent import terminal
from rusty_hf.protocol import Action

RM = Action("CMD", command="rm -r logs")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_input_is_never_read_as_the_answer(monkeypatch, capsys):
    """On a pipe the next line is the next request: the action is not applied and that line stays unread."""
    stdin = io.StringIO("y\nwhat changed?\n")
    monkeypatch.setattr("sys.stdin", stdin)
    assert terminal.ask_before_loss(RM, ["logs/a.log"], []) is False
    assert stdin.read() == "y\nwhat changed?\n"
    assert "--yes" in capsys.readouterr().out


def test_only_y_applies_and_ctrl_c_or_ctrl_d_is_a_no(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", _Tty())
    for answer, applied in (("y", True), (" YES ", True), ("", False), ("n", False), ("sure", False)):
        monkeypatch.setattr("builtins.input", lambda prompt, a=answer: a)
        assert terminal.ask_before_loss(RM, ["logs/a.log"], []) is applied
    for key in (KeyboardInterrupt, EOFError):
        def interrupted(prompt, key=key):
            raise key
        monkeypatch.setattr("builtins.input", interrupted)
        assert terminal.ask_before_loss(RM, ["logs/a.log"], []) is False


def test_the_question_names_the_action_and_at_most_five_paths(monkeypatch):
    monkeypatch.setattr("sys.stdin", _Tty())
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    terminal.ask_before_loss(RM, [f"logs/{i}.log" for i in range(30)], ["notes\x1b.txt"])
    (prompt,) = asked
    assert prompt.startswith("[$ rm -r logs deletes logs/0.log, ") and "and 25 more" in prompt
    assert "rewrites 'notes\\x1b.txt'" in prompt and "\x1b" not in prompt and prompt.endswith("Apply? y/N] ")
