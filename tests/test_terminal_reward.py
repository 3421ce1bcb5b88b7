"""The terminal reward: a completion is scored by what its action does on the request's fixture."""

import json

import pytest

from rusty_hf.data.terminal.dataset import training_requests
from rusty_hf.rewards import REWARD_FUNCS, get_terminal_reward


@pytest.fixture(scope="module")
def reward(tmp_path_factory):
    return get_terminal_reward(cache_dir=tmp_path_factory.mktemp("fixtures"), type_credit=0.2)


@pytest.fixture(scope="module")
def rows():
    requests = training_requests(400, seed=3)
    pick = {name: next(r for r in requests if r.intent == name) for name in ("count_lines", "identity", "which_test_fails")}
    return {name: (request, request.row()) for name, request in pick.items()}


def _columns(*rows: dict) -> dict:
    return {key: [row[key] for row in rows] for key in ("check", "final_check", "fixture")}


def test_registered_by_name():
    assert "terminal" in REWARD_FUNCS


def test_the_reference_earns_one_a_wrong_command_the_type_credit_and_a_msg_nothing(reward, rows):
    request, row = rows["count_lines"]
    path = request.case.slots["file"]
    completions = [json.dumps(request.case.actions[0]), json.dumps({"action": "CMD", "command": f"wc -c {path}"}),
                   json.dumps({"action": "MSG", "message": "Ten lines."}), "not an action"]  # fmt: skip
    assert reward(completions, **_columns(*[row] * 4)) == [1.0, 0.2, 0.0, 0.0]


def test_a_msg_request_is_judged_by_its_fact(reward, rows):
    _, row = rows["identity"]
    good = json.dumps({"action": "MSG", "message": "Rusty. I run commands here."})
    bad = json.dumps({"action": "MSG", "message": "Hello!"})
    assert reward([good, bad], **_columns(row, row)) == [1.0, 0.2]


def test_rows_without_a_terminal_check_get_none(reward, rows):
    _, row = rows["identity"]
    blank = {"check": "", "final_check": "", "fixture": ""}
    assert reward(["{}", json.dumps({"action": "MSG", "message": "Rusty"})], **_columns(blank, row)) == [None, 1.0]


def test_a_multi_turn_episode_is_judged_on_its_first_and_last_action(reward, rows):
    request, row = rows["which_test_fails"]
    failing = request.fixture.facts["failing_test"]
    call = {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "CMD",
                                                 "arguments": {"command": "python3 -m unittest"}}}]}  # fmt: skip
    output = {"role": "tool", "name": "CMD", "content": f"FAIL: {failing}"}
    right = [call, output, {"role": "assistant", "content": json.dumps({"action": "MSG", "message": f"{failing} fails."})}]
    wrong = [call, output, {"role": "assistant", "content": json.dumps({"action": "MSG", "message": "All green."})}]
    assert reward([right, wrong], **_columns(row, row)) == [1.0, 0.5 + 0.5 * 0.2]


def test_a_broken_row_is_skipped_not_raised(reward, rows):
    _, row = rows["identity"]
    broken = dict(row, fixture="{not json")
    assert reward([json.dumps({"action": "MSG", "message": "Rusty"})], **_columns(broken)) == [None]


def test_the_success_rate_is_logged(reward, rows):
    _, row = rows["identity"]
    logged = {}
    reward([json.dumps({"action": "MSG", "message": "Rusty"})], **_columns(row), log_metric=logged.__setitem__)
    assert logged == {"terminal/success_rate": 1.0}
