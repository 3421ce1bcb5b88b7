"""Fail closed at every path that runs model-written code: on a host without bubblewrap (simulated with
``RUSTY_SANDBOX_DISABLE=bwrap``, the ``no_bwrap`` fixture) the entry points refuse at start-up with the
sandbox's one line, and the rewards score None (said once) instead of running the code or raising."""

from __future__ import annotations

import json
import logging
import uuid
from argparse import Namespace

import pytest

from rusty_hf.rewards import get_execution_reward, get_rust_reward, get_terminal_reward
from rusty_hf.rewards.python_exec import execution
from rusty_hf.rewards.rust.toolchain import RustToolchainError, find_toolchain
from rusty_hf.sandbox.layers import ALLOW_ENV
from rusty_hf.errors import SetupError


def _the_line(text: str) -> bool:
    return "apt-get install bubblewrap" in text and f"{ALLOW_ENV}=1" in text and "\n" not in text.strip()


def test_execution_reward_scores_none_and_says_why_once(no_bwrap, tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(execution, "_REFUSALS_SAID", set())
    marker = tmp_path / "written-by-the-model"
    hostile = f"```python\nimport pathlib\npathlib.Path({str(marker)!r}).write_text('x')\ndef add(a, b):\n    return a + b\n```"
    honest = "```python\ndef add(a, b):\n    return a + b\n```"
    tests = "from solution import add\ndef test_add():\n    assert add(2, 2) == 4\n"
    with caplog.at_level(logging.ERROR):
        assert get_execution_reward()([hostile, honest], [tests, tests]) == [None, None]
    refusals = [r.getMessage() for r in caplog.records if "refuses" in r.getMessage()]
    assert len(refusals) == 1 and _the_line(refusals[0]) and not marker.exists()


def test_rust_reward_scores_none_and_says_why_once(no_bwrap, caplog):
    try:
        find_toolchain()
    except RustToolchainError as exc:
        pytest.skip(f"no Rust toolchain: {exc}")
    programs = ["```rust\npub fn one() -> i32 { 1 }\n```", "```rust\npub fn two() -> i32 { 2 }\n```"]
    with caplog.at_level(logging.ERROR):
        assert get_rust_reward(clippy=False)(programs) == [None, None]
    assert len([r for r in caplog.records if "refuses" in r.getMessage()]) == 1


def test_terminal_reward_scores_none_instead_of_running_the_command(no_bwrap, tmp_path):
    from rusty_hf.data.terminal.dataset import training_requests

    row = next(r for r in training_requests(200, seed=3) if r.intent == "count_lines").row()
    marker = tmp_path / f"ran-{uuid.uuid4().hex}"  # a command no earlier test ran (the checks cache runs)
    command = json.dumps({"action": "CMD", "command": f"touch {marker}"})
    reward = get_terminal_reward(cache_dir=tmp_path / "fixtures")
    assert reward([command], check=[row["check"]], final_check=[row["final_check"]], fixture=[row["fixture"]]) == [None]
    assert not marker.exists()


def test_rl_set_up_refuses_a_sandboxed_reward_before_anything_loads(no_bwrap):
    from rusty_hf.training.arguments import RLScriptArguments
    from rusty_hf.training.rl_setup import check_rl_arguments

    with pytest.raises(SetupError) as refused:
        check_rl_arguments(RLScriptArguments(reward_funcs=["execution", "protocol"]), Namespace(beta=0.0), model_name_or_path="m")
    assert _the_line(str(refused.value))
    check_rl_arguments(RLScriptArguments(reward_funcs=["protocol"]), Namespace(beta=0.0), model_name_or_path="m")  # runs no code


def test_evaluations_refuse_before_generating(no_bwrap, tmp_path):
    from rusty_hf.evaluation.coding import evaluate_model
    from rusty_hf.evaluation.terminal import evaluate_terminal

    for evaluate in (lambda: evaluate_model(None, None), lambda: evaluate_terminal(None, None, tmp_path)):
        with pytest.raises(SetupError) as refused:
            evaluate()  # no model: the refusal comes first
        assert _the_line(str(refused.value))


def test_rusty_terminal_refuses_to_start_unless_dry_run(no_bwrap, tmp_path, capsys):
    from rusty_hf.agent.terminal import main

    assert main(["--model", str(tmp_path / "no-model"), "--workdir", str(tmp_path)]) == 2
    assert _the_line(capsys.readouterr().err)
    assert main(["--model", str(tmp_path / "no-model"), "--workdir", str(tmp_path), "--dry-run"]) == 2
    assert "no such" in capsys.readouterr().err.lower()  # dry-run runs nothing: the next check speaks


def test_space_refuses_to_serve_commands(no_bwrap, monkeypatch, capsys):
    from tests.space.conftest import import_space_app

    monkeypatch.setenv("RUSTY_SANDBOX_EXEC", "1")
    assert import_space_app().main() == 2
    assert _the_line(capsys.readouterr().err)


def test_sft_terminal_dialogs_refuse_before_running_reference_commands(no_bwrap, tmp_path):
    from rusty_hf.data.sft_data import terminal_dialogs

    with pytest.raises(SetupError) as refused:
        terminal_dialogs(4, multi_turn_share=0.5, cache_dir=tmp_path)
    assert _the_line(str(refused.value))
    assert len(terminal_dialogs(4, multi_turn_share=0.0, cache_dir=tmp_path)) == 4  # single-turn rows run nothing
