"""Pull the program out of a model completion.

A completion reaches a reward function either as a string or, for conversational
datasets, as a list of chat messages (TRL passes ``[{"role": "assistant", "content": ...}]``).
Rusty answers a coding task in one of three shapes, tried in this order:

1. an EDIT action of the JSON protocol, ``{"action": "EDIT", "path": "solution.py", "content": "..."}``
   (possibly inside a fence, possibly after some prose) -- its ``content`` is the program;
2. a fenced block (```` ```python ... ``` ````): the longest block tagged with the language,
   else the longest untagged one (ties go to the last); a block left open by a truncated
   generation runs to the end of the text;
3. the raw text, as a last resort (prose then simply fails to parse).

Usage::

    from rusty_hf.rewards.extract import completion_text, extract_code
    code = extract_code(completion_text(completion), language="python")
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from rusty_hf.protocol.pointers import strip_markers

# Fence tags accepted for each language; "" is an untagged fence.
LANGUAGE_TAGS: dict[str, tuple[str, ...]] = {
    "python": ("python", "py", "python3"),
    "rust": ("rust", "rs"),
}
LANGUAGE_EXTENSIONS: dict[str, str] = {"python": ".py", "rust": ".rs"}

# Every pattern here runs in time linear in the text (a reward parses whatever a policy writes, and a
# backtracking regex let one 600-character completion hold a training step for seconds):
# an opening fence is found by its line start and backticks alone, its tag read by a pattern whose
# parts share no characters, and object starts by a literal pair.
_FENCE_OPEN = re.compile(r"^[ \t]*(`{3,})", re.MULTILINE)
_FENCE_TAG = re.compile(r"[ \t]*([\w+#.-]*)")
# Where a JSON object that starts with a key may begin; scanning every "{" of a code-heavy
# completion with a JSON decoder would be quadratic.
_OBJECT_START = re.compile(r'\{\s*"')
# How far the JSON decoder may read in all, per character of text: each failed start costs what it
# read, and nested starts (``{"a":{"a":...``) would otherwise re-read the same span once per level.
# 2: ``{"`` x 100,000 (every start fails, 64 characters each) takes ~17 ms; at 4 it took ~31 ms idle and
# 50 ms on a busy CPU against test_parser_cost's 50 ms floor. A completion (~10K characters) stays
# within _DECODE_BUDGET_MIN whatever this is.
_DECODE_BUDGET_PER_CHAR = 2
_DECODE_BUDGET_MIN = 1 << 16
# The slices the decoder tries at one start before the rest of the text (see _decode_at), and how
# near a slice's end a failure must be to count as the cut's doing (a cut number or literal).
_DECODE_WINDOWS = (64, 4096)
_CUT_SLACK = 8
# Longest text read at all. Generations are a few thousand tokens (~10K characters); anything past
# this is a runaway, scored as holding no code (the rewards refuse programs over 100K characters anyway).
MAX_SCAN_CHARS = 200_000
# Most fenced blocks read from one text: a reply holds a handful; tens of thousands of empty fences (``"```\n"``
# repeated) are a runaway whose blocks are read no further (parsing them all took ~60 ms at MAX_SCAN_CHARS).
MAX_FENCED_BLOCKS = 1_000


def completion_text(completion: str | Sequence[Mapping] | None) -> str:
    """Return the text of a completion given as a string or as a list of chat messages.

    For a message list the assistant messages are joined (a conversational completion
    normally holds exactly one); ``content`` given as a list of typed parts keeps its text parts. A
    tool call (what TRL's ``parse_response`` makes of a CMD or EDIT action when the tokenizer has
    Rusty's response template, `rusty_hf.agent.tool_calling`) is written back as the action it was:
    ``{"action": name, **arguments}``. The marker bytes of copy pointers are dropped (`protocol.pointers`: the span
    each marker points at follows it): what is left is what would run.
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return strip_markers(completion)
    if isinstance(completion, Mapping):
        completion = [completion]
    texts = []
    for message in completion:
        if not isinstance(message, Mapping):
            raise TypeError(f"a conversational completion holds dicts, got {type(message).__name__}")
        if message.get("role", "assistant") != "assistant":
            continue
        content = message.get("content") or ""
        if not isinstance(content, str):
            content = "".join(
                part.get("text", "") for part in content if isinstance(part, Mapping) and part.get("type") == "text"
            )
        content = strip_markers(content)
        calls = [_call_as_action(call) for call in message.get("tool_calls") or []]
        texts.append("\n".join([content, *calls]) if content and calls else content or "\n".join(calls))
    return "\n".join(texts)


def _call_as_action(call: Mapping) -> str:
    """One tool call as the protocol action it was parsed from (arguments in their order)."""
    function = call.get("function", call) if isinstance(call, Mapping) else {}
    arguments = function.get("arguments") or {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            arguments = {"arguments": arguments}
    if not isinstance(arguments, Mapping):
        arguments = {"arguments": arguments}
    arguments = {key: strip_markers(value) if isinstance(value, str) else value for key, value in arguments.items()}
    return json.dumps({"action": function.get("name"), **arguments}, ensure_ascii=False)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Return ``(tag, body)`` for every fenced block, in order; an unclosed last block runs to the end.

    A text over ``MAX_SCAN_CHARS`` holds none; only the first ``MAX_FENCED_BLOCKS`` blocks are read.
    """
    if len(text) > MAX_SCAN_CHARS:
        return []
    blocks = []
    pos = 0
    while len(blocks) < MAX_FENCED_BLOCKS and (match := _FENCE_OPEN.search(text, pos)):
        ticks = match.group(1)
        tag = _FENCE_TAG.match(text, match.end()).group(1).lower()
        line_end = text.find("\n", match.end())
        if line_end < 0:  # a fence on the last line opens an empty block
            blocks.append((tag, ""))
            break
        body_start = line_end + 1
        close = re.compile(rf"^[ \t]*{ticks}`*[ \t]*$", re.MULTILINE).search(text, body_start)
        body_end = close.start() if close else len(text)
        blocks.append((tag, text[body_start:body_end]))
        pos = close.end() if close else len(text)
    return blocks


def _decode_at(decoder: json.JSONDecoder, text: str, start: int) -> tuple[object, int, int]:
    """Decode the JSON value at ``start``: ``(value, end, cost)``, or ``(None, -1, cost)`` when there is none.

    The decoder reads a slice, not the whole text: a failure's ``JSONDecodeError`` counts the lines
    before its position, so failing at start after start in one long text is quadratic. The slice
    widens only when the failure may be the cut's doing (at its end, or inside a cut string); ``cost``
    is the characters copied and read.
    """
    cost = 0
    for width in (*_DECODE_WINDOWS, len(text) - start):
        chunk = text[start : start + width]
        cost += len(chunk)
        try:
            value, end = decoder.raw_decode(chunk)
            return value, start + end, cost
        except json.JSONDecodeError as err:
            cut = start + width < len(text)
            if not cut or (err.pos < len(chunk) - _CUT_SLACK and not err.msg.startswith("Unterminated string")):
                return None, -1, cost
        except (ValueError, RecursionError):  # an absurd number or nesting
            return None, -1, cost
    return None, -1, cost


def json_objects(text: str) -> list[dict]:
    """Every JSON object embedded in ``text`` that starts with a key, in order (prose between them skipped).

    The decoder's total reading is capped at a few times the text's length, so a text built to make
    every start fail (``{"{"{"...``, deeply nested prefixes) costs linear time; such a text may then
    yield fewer objects than it holds, never more. A text over ``MAX_SCAN_CHARS`` holds none.
    """
    if len(text) > MAX_SCAN_CHARS:
        return []
    decoder = json.JSONDecoder()
    objects = []
    pos = 0
    budget = _DECODE_BUDGET_PER_CHAR * len(text) + _DECODE_BUDGET_MIN
    while budget > 0 and (match := _OBJECT_START.search(text, pos)):
        value, end, cost = _decode_at(decoder, text, match.start())
        budget -= cost
        if end < 0:
            pos = match.start() + 1
            continue
        if isinstance(value, dict):
            objects.append(value)
        pos = end
    return objects


def edit_actions(text: str) -> list[dict]:
    """Return every JSON object in ``text`` that is a well-formed EDIT action, in order."""
    return [
        obj for obj in json_objects(text)
        if str(obj.get("action", "")).upper() == "EDIT" and isinstance(obj.get("content"), str)
    ]  # fmt: skip


def _longest_last(candidates: list[str]) -> str:
    # max() keeps the first of equal keys; reversing makes ties go to the last block.
    return max(reversed(candidates), key=len)


def extract_code(text: str, language: str = "python") -> str | None:
    """Return the program in ``text`` for ``language`` ("python" or "rust"); None if empty or over ``MAX_SCAN_CHARS``.

    >>> extract_code("Here you go:\\n```python\\ndef f():\\n    return 1\\n```\\nDone.")
    'def f():\\n    return 1\\n'
    >>> extract_code('{"action": "EDIT", "path": "solution.py", "content": "x = 1\\\\n"}')
    'x = 1\\n'
    """
    if language not in LANGUAGE_TAGS:
        raise ValueError(f"unknown language {language!r}; expected one of {sorted(LANGUAGE_TAGS)}")
    if len(text) > MAX_SCAN_CHARS:
        return None
    extension = LANGUAGE_EXTENSIONS[language]
    edits = [
        a["content"] for a in edit_actions(text) if not isinstance(a.get("path"), str) or a["path"].endswith(extension)
    ]
    if edits:
        return edits[-1]
    blocks = fenced_blocks(text)
    tagged = [body for tag, body in blocks if tag in LANGUAGE_TAGS[language]]
    untagged = [body for tag, body in blocks if not tag]
    if tagged or untagged:
        return _longest_last(tagged or untagged)
    if blocks:  # only fences of other languages: nothing here is ours
        return None
    return text.strip() or None
