"""Tests for rusty_hf.protocol.actions: the action schema, the strict parser and its correction messages."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rusty_hf.protocol import (
    ACTION_SCHEMA,
    ACTION_SHAPES,
    ERROR_KINDS,
    MAX_FIELD_CHARS,
    MAX_TEXT_CHARS,
    Action,
    ProtocolError,
    parse_action,
)

VALID = {
    '{"action": "MSG", "message": "Done. Tests pass."}': Action("MSG", message="Done. Tests pass."),
    '{"action": "CMD", "command": "ls -la"}': Action("CMD", command="ls -la"),
    '{"action": "EDIT", "path": "a.py", "content": "x = 1\\n"}': Action("EDIT", path="a.py", content="x = 1\n"),
    '{"message": "", "action": "MSG"}': Action("MSG", message=""),  # key order is free, empty message is fine
}

INVALID = [
    ("", "not_json"),
    ("   \n", "not_json"),
    ("ls -la", "not_json"),
    ('{"action": "CMD", "command": "ls"', "not_json"),
    ("{'action': 'CMD', 'command': 'ls'}", "not_json"),
    ('{"action": "MSG", "message": "a\nb"}', "not_json"),  # raw control character inside a string
    ('{"action": "MSG", "message": "\\ud800"}', "not_json"),  # lone surrogate
    ('{"action": "MSG", "message": NaN}', "not_json"),  # Python's json reads NaN; JSON does not
    ('{"action": "RUN", "command": "ls"}', "unknown_action"),
    ('{"action": "cmd", "command": "ls"}', "unknown_action"),
    ('{"command": "ls"}', "missing_field"),
    ('{"action": "CMD"}', "missing_field"),
    ('{"action": "EDIT", "path": "a.py"}', "missing_field"),
    ("[1, 2]", "wrong_type"),
    ('"MSG"', "wrong_type"),
    ('{"action": 3, "command": "ls"}', "wrong_type"),
    ('{"action": "CMD", "command": ["ls"]}', "wrong_type"),
    ('{"action": "CMD", "command": ""}', "wrong_type"),
    ('{"action": "EDIT", "path": "", "content": "x"}', "wrong_type"),
    ('{"action": "CMD", "command": "ls", "cwd": "src"}', "wrong_type"),  # unknown key
    ('{"action": "CMD", "command": "ls", "message": "hi"}', "wrong_type"),  # another action's field
    ('{"action": "CMD", "command": "ls", "command": "pwd"}', "wrong_type"),  # duplicate key
    ('{"action": "CMD", "command": "ls"} thanks', "trailing_text"),
    ('{"action": "CMD", "command": "ls"}\n{"action": "MSG", "message": "hi"}', "trailing_text"),
    ('{"action": "MSG", "message": "' + "a" * (MAX_FIELD_CHARS["message"] + 1) + '"}', "too_long"),
    (" " * (MAX_TEXT_CHARS + 1), "too_long"),
]


@pytest.mark.parametrize("text, expected", VALID.items())
def test_valid_actions_parse(text, expected):
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    "wrapped",
    [
        '  \n{"action": "CMD", "command": "ls"}\n\n',
        '```json\n{"action": "CMD", "command": "ls"}\n```',
        '```\n{"action": "CMD", "command": "ls"}\n```\n',
        '```JSON{"action": "CMD", "command": "ls"}```',
        ' ```json\n  {"action": "CMD", "command": "ls"}  \n``` ',
    ],
)
def test_whitespace_and_one_fence_are_tolerated(wrapped):
    assert parse_action(wrapped) == Action("CMD", command="ls")


def test_prose_around_a_fence_is_not_tolerated():
    with pytest.raises(ProtocolError) as err:
        parse_action('Sure:\n```json\n{"action": "CMD", "command": "ls"}\n```')
    assert err.value.kind == "not_json"


@pytest.mark.parametrize("text, kind", INVALID, ids=[f"{kind}-{i}" for i, (_, kind) in enumerate(INVALID)])
def test_each_failure_has_its_kind(text, kind):
    with pytest.raises(ProtocolError) as err:
        parse_action(text)
    assert err.value.kind == kind and kind in ERROR_KINDS


def test_every_kind_is_covered():
    assert {kind for _, kind in INVALID} == set(ERROR_KINDS)


def test_correction_message_names_the_problem_and_shows_the_shape():
    with pytest.raises(ProtocolError) as err:
        parse_action('{"action": "CMD"}')
    message = err.value.correction_message
    assert "missing_field" in message and "'command'" in message
    assert ACTION_SHAPES["CMD"] in message and ACTION_SHAPES["EDIT"] not in message  # the action is known
    assert len(message) < 300


def test_correction_message_shows_all_shapes_when_the_action_is_unknown():
    with pytest.raises(ProtocolError) as err:
        parse_action("hello")
    assert all(shape in err.value.correction_message for shape in ACTION_SHAPES.values())


@pytest.mark.parametrize("value", [None, 3, b'{"action": "MSG", "message": "hi"}', ["x"]])
def test_non_text_input_raises_protocol_error(value):
    with pytest.raises(ProtocolError) as err:
        parse_action(value)
    assert err.value.kind == "not_json"


def test_action_constructor_validates():
    with pytest.raises(ProtocolError) as err:
        Action("CMD")
    assert err.value.kind == "missing_field"


def _json_values():
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=8,
    )


_ACTIONISH = st.fixed_dictionaries(
    {"action": st.sampled_from(["MSG", "CMD", "EDIT", "msg", "RUN", 1])},
    optional={k: st.text(max_size=12) | st.integers() for k in ["message", "command", "path", "content", "cwd"]},
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=200),
        _json_values().map(json.dumps),
        _ACTIONISH.map(json.dumps),
        st.tuples(_ACTIONISH.map(json.dumps), st.text(max_size=10)).map(lambda p: "```json\n" + p[0] + p[1]),
        st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
    )
)
def test_fuzz_only_protocol_error_escapes(text):
    try:
        assert isinstance(parse_action(text), Action)
    except ProtocolError as err:
        assert err.kind in ERROR_KINDS and err.correction_message


_FIELD_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(
        _FIELD_TEXT.map(lambda t: Action("MSG", message=t)),
        _FIELD_TEXT.filter(bool).map(lambda t: Action("CMD", command=t)),
        st.tuples(_FIELD_TEXT.filter(bool), _FIELD_TEXT).map(lambda p: Action("EDIT", path=p[0], content=p[1])),
    )
)
def test_to_json_round_trips(action):
    assert parse_action(action.to_json()) == action
    assert json.loads(action.to_json()) == action.to_dict()


def test_schema_accepts_the_valid_actions():
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator.check_schema(ACTION_SCHEMA)
    for action in VALID.values():
        jsonschema.validate(action.to_dict(), ACTION_SCHEMA)


@settings(max_examples=80, deadline=None)
@given(_ACTIONISH)
def test_schema_and_parser_agree(obj):
    jsonschema = pytest.importorskip("jsonschema")
    schema_ok = jsonschema.Draft202012Validator(ACTION_SCHEMA).is_valid(obj)
    try:
        parse_action(json.dumps(obj))
        parser_ok = True
    except ProtocolError:
        parser_ok = False
    assert schema_ok == parser_ok


@pytest.mark.parametrize(
    "text, expected",
    [('{"action": "MSG", "message": "Tests pass.\\nNe', "Tests pass.\nNe"),
     ('{"action": "MSG", "message": "caf\\u00', "caf"),  # a cut escape waits for its digits
     ('{"action": "MSG", "message": "caf\\u00e9."}', "café."),
     ('{"action": "MSG", "message": "a\\\\u00', "a\\u00"),  # an escaped backslash, then text
     ('{"action": "CMD", "command": "ls"}', None),
     ('{"act', None)],
)  # fmt: skip
def test_partial_message_decodes_a_streaming_msg(text, expected):
    from rusty_hf.protocol.actions import partial_message

    assert partial_message(text) == expected
