"""Rusty's action protocol: the three JSON actions, their schema, a strict parser and correction messages.

Every assistant turn is exactly one JSON object, one of::

    {"action": "MSG", "message": "<text for the user>"}
    {"action": "CMD", "command": "<one shell command to run>"}
    {"action": "EDIT", "path": "<file to write>", "content": "<the complete new file>"}

Usage::

    from rusty_hf.protocol import parse_action, ProtocolError
    try:
        action = parse_action(model_output)
    except ProtocolError as err:
        messages.append({"role": "system", "content": err.correction_message})  # and let the model retry

What `parse_action` tolerates: whitespace around the object and one Markdown code fence around it (any tag,
e.g. ```` ```json ````). What it does not: anything else. Every failure is a `ProtocolError` (a `ValueError`)
whose ``kind`` is one of `ERROR_KINDS`:

- ``not_json``: empty, not JSON at all (Python's ``NaN``/``Infinity`` included), or a string holding a lone
  UTF-16 surrogate (``"\\ud800"``, which is not text and cannot be written to a file);
- ``trailing_text``: a JSON value followed by more text -- including a second action (one action per turn);
- ``unknown_action``: ``"action"`` is a string but not ``MSG``/``CMD``/``EDIT`` (names are upper case);
- ``missing_field``: ``"action"`` or a field the action requires is absent;
- ``wrong_type``: the JSON is not an object, a field is not a string, ``command``/``path`` is empty, a key
  is repeated, or the object has a key its action does not define. Unknown keys are a schema error on
  purpose (the schema says ``additionalProperties: false``): a tiny model that invents ``"cwd"`` must learn
  nothing reads it, and we keep to the six kinds the rest of rusty_hf codes against rather than add a seventh;
- ``too_long``: the text is longer than `MAX_TEXT_CHARS`, or a field longer than `MAX_FIELD_CHARS` allows.

``err.value`` holds the decoded JSON value when the text was JSON (so rewards can give partial credit),
else None.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

ActionName = Literal["MSG", "CMD", "EDIT"]
ErrorKind = Literal["not_json", "unknown_action", "missing_field", "wrong_type", "trailing_text", "too_long"]
ERROR_KINDS: tuple[str, ...] = get_args(ErrorKind)

# The fields each action carries, in the order `Action.to_json` writes them (and constrained decoding emits).
ACTION_FIELDS: dict[str, tuple[str, ...]] = {"MSG": ("message",), "CMD": ("command",), "EDIT": ("path", "content")}
# Longest value, in characters, each field may hold. Generous for real use, small enough that a runaway
# generation is caught; content is a whole file.
MAX_FIELD_CHARS: dict[str, int] = {"message": 4_000, "command": 2_000, "path": 256, "content": 32_000}
# Fields that must not be empty: an empty command or path cannot be acted on; an empty message or file can.
NON_EMPTY_FIELDS: frozenset[str] = frozenset({"command", "path"})
# Longest raw text parse_action reads (checked before decoding, so a huge input costs nothing).
MAX_TEXT_CHARS = 40_000

ACTION_SHAPES: dict[str, str] = {
    "MSG": '{"action": "MSG", "message": "<text for the user>"}',
    "CMD": '{"action": "CMD", "command": "<one shell command to run>"}',
    "EDIT": '{"action": "EDIT", "path": "<file to write>", "content": "<the complete new file>"}',
}


def _action_schema() -> dict[str, Any]:
    def variant(name: str) -> dict[str, Any]:
        fields = ACTION_FIELDS[name]
        properties: dict[str, Any] = {"action": {"const": name}}
        for field in fields:
            properties[field] = {"type": "string", "maxLength": MAX_FIELD_CHARS[field]}
            if field in NON_EMPTY_FIELDS:
                properties[field]["minLength"] = 1
        return {
            "type": "object",
            "properties": properties,
            "required": ["action", *fields],
            "additionalProperties": False,
        }

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Rusty action",
        "description": "Exactly one action per assistant turn.",
        "oneOf": [variant(name) for name in ACTION_FIELDS],
    }


# JSON Schema (draft 2020-12) of one action; give it to any validator or grammar engine.
ACTION_SCHEMA: dict[str, Any] = _action_schema()

# One optional fence around the whole answer: ```tag\n ... ``` (the newline may be missing). Only the
# header is a regex, and it always matches without backtracking (its parts share no characters and
# nothing follows them), so stripping costs one pass over the text: a regex spanning the body
# backtracked quadratically or worse on inputs like "```" + " " * 1600.
_FENCE_TICKS = "```"
_FENCE_HEADER = re.compile(r"[ \t]*[A-Za-z0-9_+-]*[ \t]*\n?")
_JSON_WS = " \t\n\r"


class ProtocolError(ValueError):
    """The model's text is not a valid action.

    Attributes:
        kind: one of `ERROR_KINDS`.
        correction_message: the system message to send back so the model can retry.
        value: the decoded JSON value when the text was JSON, else None.
    """

    def __init__(self, kind: ErrorKind, detail: str, expected: str | None = None, value: Any = None) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail
        self.value = value
        shapes = ACTION_SHAPES[expected] if expected else "\n".join(ACTION_SHAPES.values())
        self.correction_message = (
            f"Invalid action ({kind}): {detail}. Reply with exactly one JSON object and nothing else:\n{shapes}"
        )


@dataclass(frozen=True)
class Action:
    """One valid action. Fields an action does not use are None.

    >>> Action("CMD", command="ls").to_json()
    '{"action": "CMD", "command": "ls"}'
    """

    action: ActionName
    message: str | None = None
    command: str | None = None
    path: str | None = None
    content: str | None = None

    def __post_init__(self) -> None:
        # Validate through the same checks as parse_action, so an Action always serialises to a valid one.
        given = {name: getattr(self, name) for name in MAX_FIELD_CHARS if getattr(self, name) is not None}
        _check_schema({"action": self.action, **given})

    def to_dict(self) -> dict[str, str]:
        return {"action": self.action, **{field: getattr(self, field) for field in ACTION_FIELDS[self.action]}}

    def to_json(self) -> str:
        return action_json(self.to_dict())


def action_json(action: dict) -> str:
    """An action as Rusty writes it: JSON with non-ASCII text as itself ("café.txt", not "caf\\u00e9.txt"), the
    form training targets take and the copy mechanism copies into (`copying.escape_for_json_string`)."""
    return json.dumps(action, ensure_ascii=False)


class _NonStandardConstant(Exception):
    pass


def _reject_constant(name: str) -> None:
    # Python's json reads NaN/Infinity, which no other JSON parser (or the grammar) accepts.
    raise _NonStandardConstant(name)


def _strip(text: str) -> str:
    """The text without surrounding whitespace and without one Markdown fence around all of it."""
    text = text.strip(_JSON_WS)
    if not text.startswith(_FENCE_TICKS):
        return text
    body_start = _FENCE_HEADER.match(text, len(_FENCE_TICKS)).end()
    # The header never eats a backtick, so the closing fence is the last three characters or absent.
    if len(text) - body_start < len(_FENCE_TICKS) or not text.endswith(_FENCE_TICKS):
        return text
    return text[body_start : len(text) - len(_FENCE_TICKS)].rstrip().strip(_JSON_WS)


def _decode(body: str) -> Any:
    if not body:
        raise ProtocolError("not_json", "the reply is empty")
    repeated: list[str] = []

    def keep_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, val in pairs:
            if key in obj:
                repeated.append(key)
            obj[key] = val
        return obj

    try:
        decoder = json.JSONDecoder(object_pairs_hook=keep_pairs, parse_constant=_reject_constant)
        value, end = decoder.raw_decode(body)
    except _NonStandardConstant as constant:
        raise ProtocolError("not_json", f"{constant} is not JSON") from None
    except json.JSONDecodeError as err:
        raise ProtocolError("not_json", f"not valid JSON ({err.msg} at char {err.pos})") from None
    except (ValueError, RecursionError) as err:  # e.g. an integer too long to convert, absurd nesting
        raise ProtocolError("not_json", f"not valid JSON ({type(err).__name__})") from None
    rest = body[end:].strip(_JSON_WS)
    if rest:
        what = "a second JSON value (one action per turn)" if rest[0] in "{[" else "extra text"
        raise ProtocolError("trailing_text", f"{what} after the JSON object: {rest[:40]!r}")
    if repeated:  # a schema error on a JSON object: the value (last key wins) goes with it, as for the others
        raise ProtocolError("wrong_type", f"field {repeated[0][:40]!r} appears twice", value=value)
    return value


def _check_schema(obj: Any) -> None:
    if not isinstance(obj, dict):
        raise ProtocolError("wrong_type", f"expected a JSON object, got a JSON {type(obj).__name__}", value=obj)
    if "action" not in obj:
        raise ProtocolError("missing_field", 'missing field "action"', value=obj)
    name = obj["action"]
    if not isinstance(name, str):
        raise ProtocolError("wrong_type", f'"action" must be a string, got {type(name).__name__}', value=obj)
    if name not in ACTION_FIELDS:
        hint = " (action names are upper case)" if name.upper() in ACTION_FIELDS else ""
        raise ProtocolError("unknown_action", f'unknown action {name[:40]!r}{hint}; use MSG, CMD or EDIT', value=obj)
    fields = ACTION_FIELDS[name]
    missing = [f for f in fields if f not in obj]
    if missing:
        raise ProtocolError("missing_field", f"{name} needs field(s) {', '.join(map(repr, missing))}", name, obj)
    extra = [k for k in obj if k != "action" and k not in fields]
    if extra:
        raise ProtocolError("wrong_type", f"{name} takes no field {str(extra[0])[:40]!r}", name, obj)
    for field in fields:
        _check_field(name, field, obj[field], obj)


def _check_field(name: str, field: str, val: Any, obj: dict) -> None:
    if not isinstance(val, str):
        raise ProtocolError("wrong_type", f"{field!r} must be a string, got {type(val).__name__}", name, obj)
    if not val and field in NON_EMPTY_FIELDS:
        raise ProtocolError("wrong_type", f"{field!r} must not be empty", name, obj)
    if len(val) > MAX_FIELD_CHARS[field]:
        limit = MAX_FIELD_CHARS[field]
        raise ProtocolError("too_long", f"{field!r} has {len(val)} characters, the limit is {limit}", name, obj)
    try:
        val.encode("utf-8")
    except UnicodeEncodeError:
        raise ProtocolError("not_json", f"{field!r} holds a lone \\u surrogate escape, not text", name) from None


# The start of a MSG as constrained decoding (and any tidy model) writes it, and its string body so far.
_MSG_HEAD = re.compile(r'\s*(?:```[A-Za-z]*\s*)?\{\s*"action"\s*:\s*"MSG"\s*,\s*"message"\s*:\s*"')
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*')  # stops before a closing quote or a lone trailing backslash


def partial_message(text: str) -> str | None:
    """The text of a MSG action still being generated, decoded so far; None when ``text`` is not one.

    For showing a reply as it streams: a MSG reads as prose, not JSON. A cut escape at the end waits
    for the next chunk.

    >>> partial_message('{"action": "MSG", "message": "Tests pass.\\nNext')
    'Tests pass.\nNext'
    >>> partial_message('{"action": "CMD", "command": "ls"}') is None
    True
    """
    head = _MSG_HEAD.match(text)
    if head is None:
        return None
    body = _STRING_BODY.match(text, head.end()).group()
    for cut in range(5):  # a "\\u" escape missing up to four hex digits
        try:
            return json.loads(f'"{body[: len(body) - cut]}"')
        except ValueError:
            continue
    return None  # a malformed escape: the parser will say so when the reply ends


def parse_action(text: str) -> Action:
    """Parse one action from a model's reply; raise `ProtocolError` (and nothing else) if it is not valid.

    >>> parse_action('```json\\n{"action": "MSG", "message": "Done."}\\n```')
    Action(action='MSG', message='Done.', command=None, path=None, content=None)
    >>> parse_action('{"action": "CMD"}')
    Traceback (most recent call last):
    ...
    rusty_hf.protocol.actions.ProtocolError: missing_field: CMD needs field(s) 'command'
    """
    if not isinstance(text, str):
        raise ProtocolError("not_json", f"expected the reply as text, got {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise ProtocolError("too_long", f"the reply has {len(text)} characters, the limit is {MAX_TEXT_CHARS}")
    obj = _decode(_strip(text))
    _check_schema(obj)
    return Action(**obj)
