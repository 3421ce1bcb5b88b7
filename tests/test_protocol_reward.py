"""Tests for rusty_hf.protocol.reward: the protocol reward and its registration."""

import pytest

from rusty_hf.protocol import NON_OBJECT_CREDIT, SCHEMA_CREDIT, ProtocolError, parse_action, protocol_reward
from rusty_hf.rewards import REWARD_FUNCS, get_reward_funcs

VALID = '{"action": "CMD", "command": "cargo test"}'


@pytest.mark.parametrize(
    "completion, score",
    [
        (VALID, 1.0),
        ("```json\n" + VALID + "\n```", 1.0),
        ('{"action": "RUN", "command": "ls"}', SCHEMA_CREDIT),
        ('{"action": "CMD"}', SCHEMA_CREDIT),
        ('{"action": "CMD", "command": "ls", "cwd": "."}', SCHEMA_CREDIT),
        ('{"action": "MSG", "message": "' + "x" * 5000 + '"}', SCHEMA_CREDIT),
        ('["ls"]', NON_OBJECT_CREDIT),
        ('"just a string"', NON_OBJECT_CREDIT),
        ("Sure! Run ls.", 0.0),
        (VALID + " " + VALID, 0.0),  # two actions: trailing text
        ('{"action": "CMD", "command": "ls"', 0.0),
        ("", 0.0),
    ],
)
def test_scores(completion, score):
    assert protocol_reward([completion]) == [score]


def test_partial_credits_rank_between_invalid_and_valid():
    assert 0.0 < NON_OBJECT_CREDIT < SCHEMA_CREDIT < 1.0


def test_conversational_completions():
    completions = [[{"role": "assistant", "content": VALID}], [{"role": "assistant", "content": "hi"}]]
    assert protocol_reward(completions, prompts=["a", "b"], task=["x", "y"]) == [1.0, 0.0]


def test_logs_valid_rate():
    logged = {}
    protocol_reward([VALID, "nope", VALID, "[1]"], log_metric=lambda name, value: logged.update({name: value}))
    assert logged == {"protocol/valid_rate": 0.5}


def test_registered_as_protocol():
    assert REWARD_FUNCS["protocol"] is protocol_reward
    (func,) = get_reward_funcs(["protocol"])
    assert func.__name__ == "protocol_reward"


def test_a_repeated_key_is_a_schema_error_with_the_schema_credit():
    text = '{"action": "MSG", "message": "a", "message": "b"}'
    with pytest.raises(ProtocolError) as err:
        parse_action(text)
    assert err.value.kind == "wrong_type" and err.value.value == {"action": "MSG", "message": "b"}
    assert protocol_reward([text]) == [SCHEMA_CREDIT]
