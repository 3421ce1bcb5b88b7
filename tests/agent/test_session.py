"""rusty_hf.agent.session.AgentSession with a real tiny model that has memorised a few replies."""

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from rusty_hf.agent.session import AgentSession
from rusty_hf.protocol import Action
from rusty_hf.agent.workspace import Workspace
from rusty_hf.sandbox import Limits
from tests.agent.conftest import ADD_SOLUTION, SYSTEM_PROMPT


@pytest.fixture(scope="module")
def model_and_tokenizer(rusty_checkpoint):
    return AutoModelForCausalLM.from_pretrained(rusty_checkpoint), AutoTokenizer.from_pretrained(rusty_checkpoint)


@pytest.fixture
def make_session(model_and_tokenizer, tmp_path):
    model, tokenizer = model_and_tokenizer

    def make(**kwargs):
        kwargs = {"system_prompt": SYSTEM_PROMPT, "max_steps": 1, **kwargs}
        return AgentSession(model, tokenizer, Workspace(tmp_path / "work"), **kwargs)

    return make


def test_reply_streams_and_parses_into_an_action(make_session):
    chunks = []
    session = make_session(on_text=chunks.append)
    (step,) = session.respond("hello")
    assert step.action.action == "MSG" and step.action.message == "Hi. What needs fixing?"
    assert "".join(chunks) == step.raw and len(chunks) > 1  # streamed piece by piece


def test_cmd_result_goes_back_into_the_history_as_a_tool_turn(make_session):
    session = make_session()
    session.workspace.write_file("a.txt", "x")
    (step,) = session.respond("list files")
    assert step.executed and "a.txt" in step.result
    assert session.messages[-1] == {"role": "tool", "name": "CMD", "content": step.result}


def test_edit_inside_the_workspace_is_applied(make_session):
    session = make_session()
    (step,) = session.respond("make notes")
    assert step.executed and (session.workspace.root / "notes.txt").read_text() == "remember the milk"


def test_edit_outside_the_workspace_is_refused(make_session):
    session = make_session()
    (step,) = session.respond("write evil")
    assert not step.executed and "refused path" in step.result
    assert not (session.workspace.root.parent / "evil.txt").exists()


def test_dry_run_executes_nothing(make_session):
    session = make_session(dry_run=True)
    (step,) = session.respond("make notes")
    assert not step.executed and step.result.startswith("[dry run]")
    assert not (session.workspace.root / "notes.txt").exists()


def test_malformed_reply_gets_corrections_and_bounded_retries(make_session):
    errors = []
    session = make_session(constrained=False, max_retries=1, on_retry=errors.append)
    (step,) = session.respond("babble")
    corrections = [m for m in session.messages if m["role"] == "system" and m["content"].startswith("Invalid action")]
    assert errors and errors[0].kind == "not_json"
    assert corrections[0]["content"] == errors[0].correction_message
    assert len(errors) <= 2 and step.retries <= 1  # one try plus at most one retry


def test_constrained_decoding_turns_the_same_request_into_a_valid_action(make_session):
    (step,) = make_session(constrained=True).respond("babble")
    assert step.action is not None and step.retries == 0


def test_bad_limits_are_rejected(make_session):
    with pytest.raises(ValueError, match="max_steps"):
        make_session(max_steps=0)


def _replying(session, *replies):
    """The session's model replaced by fixed replies, for properties of what the session does with them."""
    queue = list(replies)
    session.generate = lambda: queue.pop(0) if len(queue) > 1 else queue[0]
    return session


@pytest.mark.parametrize(
    "reply, expected",
    [('{"action": "CMD", "command": "echo a\\u0000b"}', "NUL character"),
     ('{"action": "EDIT", "path": ".git/config", "content": "[core]"}', "off limits"),
     ('{"action": "EDIT", "path": "a\\u0000b", "content": "x"}', "refused path")],
)  # fmt: skip
def test_a_bad_action_gets_one_clear_line_and_the_session_goes_on(make_session, reply, expected):
    session = _replying(make_session(), reply)
    (step,) = session.respond("do it")
    assert not step.executed and expected in step.result and "\n" not in step.result
    assert session.messages[-1]["role"] == "tool"
    assert not (session.workspace.root / ".git").exists()


def test_a_full_workspace_is_named_with_its_fix(make_session):
    session = _replying(make_session(), '{"action": "CMD", "command": "ls"}')
    session.workspace.limits = Limits(disk_mb=1)
    (session.workspace.root / "big.bin").write_bytes(b"\0" * (2 << 20))
    (step,) = session.respond("list")
    assert not step.executed and "too big" in step.result and "--workdir" in step.result


def test_an_action_is_not_run_a_third_time_in_a_row(make_session):
    session = _replying(make_session(max_steps=4), '{"action": "CMD", "command": "echo again >> log.txt"}')
    steps = list(session.respond("run the tests"))
    assert [s.executed for s in steps] == [True, True, False] and steps[-1].repeated
    assert "not run again" in steps[-1].result
    assert (session.workspace.root / "log.txt").read_text() == "again\nagain\n"


def test_a_file_is_not_written_again_right_after_it_was_written(make_session):
    # After "create hello.py that prints hello" wrote print('hello'), the tiny model's next step wrote the
    # same file again with a word it remembers: with nothing run in between, it learned nothing new
    session = _replying(make_session(max_steps=4), '{"action": "EDIT", "path": "hello.py", "content": "print(1)"}',
                        '{"action": "EDIT", "path": "hello.py", "content": "print(2)"}')  # fmt: skip
    steps = list(session.respond("create hello.py that prints 1"))
    assert [s.executed for s in steps] == [True, False] and steps[-1].repeated
    assert "not written: hello.py" in steps[-1].result and session.messages[-1]["content"] == steps[-1].result
    assert (session.workspace.root / "hello.py").read_text() == "print(1)"
    # another file, or the same one after a command ran, is written
    session = _replying(make_session(max_steps=3), '{"action": "EDIT", "path": "a.py", "content": "x = 1"}',
                        '{"action": "CMD", "command": "python3 a.py"}', '{"action": "EDIT", "path": "a.py", "content": "x = 2"}')  # fmt: skip
    assert [s.executed for s in session.respond("write a.py, run it, fix it")] == [True, True, True]
    # an EDIT that was not applied (a dry run) is no write to repeat
    session = _replying(make_session(max_steps=2, dry_run=True), '{"action": "EDIT", "path": "b.py", "content": "x"}',
                        '{"action": "EDIT", "path": "b.py", "content": "y"}')  # fmt: skip
    assert [s.repeated for s in session.respond("write b.py")] == [False, False]


def test_undo_puts_back_what_the_last_reply_wrote_and_tells_the_model(make_session):
    session = make_session(copy=False)  # the memorised reply, not one the workspace's names steer
    session.workspace.write_file("notes.txt", "my own notes")
    (step,) = session.respond("make notes")
    assert step.executed and (session.workspace.root / "notes.txt").read_text() == "remember the milk"
    assert session.undo() == ["notes.txt"]
    assert (session.workspace.root / "notes.txt").read_text() == "my own notes"
    assert session.messages[-1] == {"role": "system", "content": "The user undid your last changes: notes.txt"}
    assert session.undo() == [] and session.messages[-1]["content"].endswith(": notes.txt")  # nothing more said


def test_an_edit_that_rewrites_a_file_is_written_only_when_confirmed(make_session):
    asked = []
    session = make_session(confirm=lambda action, deleted, rewritten: asked.append((action.path, deleted, rewritten)))
    session.workspace.write_file("solution.py", "old = 1\n")
    (step,) = session.respond("write add")
    assert asked == [("solution.py", [], ["solution.py"])] and not step.executed
    assert "did not approve rewriting solution.py" in step.result and session.messages[-1]["content"] == step.result
    assert (session.workspace.root / "solution.py").read_text() == "old = 1\n"
    session = make_session(confirm=lambda action, deleted, rewritten: True)
    (step,) = session.respond("write add")
    assert step.executed and (session.workspace.root / "solution.py").read_text() == ADD_SOLUTION


def test_a_command_that_deletes_a_file_is_run_only_when_confirmed(make_session):
    asked = []
    session = make_session(confirm=lambda action, deleted, rewritten: asked.append((action.command, deleted)) or False)
    session.workspace.write_file("a.txt", "keep me\n")
    result, executed = session.execute(Action("CMD", command="rm a.txt"))
    assert asked == [("rm a.txt", ["a.txt"])] and "did not approve" in result
    assert (session.workspace.root / "a.txt").read_text() == "keep me\n"


def test_a_declined_change_closes_with_not_applied_not_with_what_it_would_have_done(make_session):
    """After a change the user declined (a command's or an EDIT's) the closing MSG is decoded as "Not applied.", the
    way a silent success is "Done.": the model cannot say the line was added (qs91's README exchange did)."""
    from rusty_hf.protocol.copying import copy_targets

    session = make_session(confirm=lambda action, deleted, rewritten: False)
    session.workspace.write_file("notes.txt", "buy milk\n")
    declined = [session.execute(Action("CMD", command="mv notes.txt gull.txt"))[0],
                session.execute(Action("EDIT", path="notes.txt", content="water plants\n"))[0]]
    session = make_session(confirm=lambda action, deleted, rewritten: True)
    applied = session.execute(Action("CMD", command="echo 'water plants' >> notes.txt"))[0]
    assert (session.workspace.root / "notes.txt").read_text() == "buy milk\nwater plants\n"
    for result in declined:
        targets = copy_targets(['add "water plants" to notes.txt', result])
        assert (targets.status, targets.shown) == ("Not applied.", ()), result
    assert copy_targets(["add it", applied]).status == "Done."


def test_a_new_file_needs_no_confirmation(make_session):
    session = make_session(confirm=lambda *args: pytest.fail(f"asked: {args}"))
    (step,) = session.respond("make notes")
    assert step.executed and (session.workspace.root / "notes.txt").read_text() == "remember the milk"
