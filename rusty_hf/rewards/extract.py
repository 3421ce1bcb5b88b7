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

# Fence tags accepted for each language; "" is an untagged fence.
LANGUAGE_TAGS: dict[str, tuple[str, ...]] = {
    "python": ("python", "py", "python3"),
    "rust": ("rust", "rs"),
}
LANGUAGE_EXTENSIONS: dict[str, str] = {"python": ".py", "rust": ".rs"}

# An opening fence: three or more backticks, an optional tag, the rest of the line.
_FENCE = re.compile(r"^[ \t]*(`{3,})[ \t]*([\w+#.-]*)[^\n]*\n", re.MULTILINE)
# Where a JSON object that starts with a key may begin; scanning every "{" of a code-heavy
# completion with a JSON decoder would be quadratic.
_OBJECT_START = re.compile(r'\{\s*"')


def completion_text(completion: str | Sequence[Mapping] | None) -> str:
    """Return the text of a completion given as a string or as a list of chat messages.

    For a message list the assistant messages are joined (a conversational completion
    normally holds exactly one); ``content`` given as a list of typed parts keeps its text parts.
    """
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
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
        texts.append(content)
    return "\n".join(texts)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Return ``(tag, body)`` for every fenced block, in order; an unclosed last block runs to the end."""
    blocks = []
    pos = 0
    while match := _FENCE.search(text, pos):
        ticks, tag = match.group(1), match.group(2).lower()
        close = re.compile(rf"^[ \t]*{ticks}`*[ \t]*$", re.MULTILINE).search(text, match.end())
        body_end = close.start() if close else len(text)
        blocks.append((tag, text[match.end() : body_end]))
        pos = close.end() if close else len(text)
    return blocks


def json_objects(text: str) -> list[dict]:
    """Every JSON object embedded in ``text`` that starts with a key, in order (prose between them skipped)."""
    decoder = json.JSONDecoder()
    objects = []
    pos = 0
    while match := _OBJECT_START.search(text, pos):
        try:
            obj, end = decoder.raw_decode(text, match.start())
        except ValueError:
            pos = match.start() + 1
            continue
        if isinstance(obj, dict):
            objects.append(obj)
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
    """Return the program in ``text`` for ``language`` ("python" or "rust"), or None if it is empty.

    >>> extract_code("Here you go:\\n```python\\ndef f():\\n    return 1\\n```\\nDone.")
    'def f():\\n    return 1\\n'
    >>> extract_code('{"action": "EDIT", "path": "solution.py", "content": "x = 1\\\\n"}')
    'x = 1\\n'
    """
    if language not in LANGUAGE_TAGS:
        raise ValueError(f"unknown language {language!r}; expected one of {sorted(LANGUAGE_TAGS)}")
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
