"""Copy pointers: the model points at a span of the request, and the host writes the span byte-exactly.

A small model cannot write a word it never learned to output ("replace 'rapid' with 'mighty'" becomes `s/tame/moth/`
under plain decoding). Pointing is easier than spelling: the host marks each span of the user's request with a
marker byte, the first span with the first marker, and the model, where an action's string holds a span, writes the
span's marker instead of its text; the host then forces the span's tokens (`ProtocolLogitsProcessor`), so what runs
is exactly what the user typed. The labels come free from the training data: a reference action is marked where its
strings hold a span of the request (`mark_action`).

**Spans** (`request_spans`), in the order the request holds them, typed as the copy bias types its NAME and QUOTED
spans: a quoted value (whole, its quotes left out); outside quotes each word shaped like a name (``_ . / -``, a digit,
an inner capital: ``notes.txt``, ``src/lib.rs``, ``12``, ``BudgetArchive``), and a count written as a word, which
points to its digits ("the first two lines": a pointer writes ``2``). A plain word is no span: with every word of the
request marked the model pointed at the word beside the one it wanted.

**Markers** are control bytes (`MARKERS`): each is one token of the byte-level vocabulary, never merged with a
neighbour, so a marked request tokenizes as the request does around it, and no vocabulary changes. A user's own
marker bytes are dropped before marking.

**Where a pointer goes** (`mark_action`): in a CMD's command and an EDIT's path and content (a MSG is the model's
own text), before each occurrence of a span's text that starts and ends at a word's edge, longest first; a span
that occurs twice in the request is pointed at by its first marker.

**Measured, not the recipe's default** (`benchmarks/results/catalogue_s67.json`, SFT seeds 0 and 1 against the
recipe's): held-out seen values 0.797 / 0.814 against 0.767 / 0.764, new values 0.732 / 0.732 against 0.650 / 0.650;
blind catalogue 0.735 / 0.724 against 0.743 / 0.705, outside 0.448 / 0.431 against 0.431 / 0.397; conversations
0.472 / 0.478 against 0.500 / 0.517. Decoded without the copy bias the pointer alone keeps the first actions (seed 0:
held-out 0.794 / 0.738, blind catalogue 0.724), but not the conversations (0.219): their closings state what an
output showed, which only the copy bias's SHOWN slot copies. `recipes/sft.py --terminal_pointers true` trains one.

    marked = mark_request("in notes.txt replace 'rapid' with 'mighty'")
    # "in \\x01notes.txt replace '\\x02rapid' with '\\x03mighty'"
    mark_action('{"action": "CMD", "command": "sed -i \\'s/rapid/mighty/\\' notes.txt"}', marked)
    # '{"action": "CMD", "command": "sed -i \\'s/\\x02rapid/\\x03mighty/\\' \\x01notes.txt"}'
    strip_markers(...)  # what runs
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rusty_hf.protocol.actions import action_json
from rusty_hf.protocol.copying import _NAME_LIKE, _NUMERALS, _QUOTED, escape_for_json_string

# Control bytes no request or action holds: not \t \n \v \f \r (text), not \0
MARKERS = tuple(chr(c) for c in (*range(0x01, 0x09), *range(0x0E, 0x20)))
_MARKER = re.compile("[\x01-\x08\x0e-\x1f]")
_WORD = re.compile(r"[A-Za-z0-9_./-]+")
_EDGE = re.compile(r"[A-Za-z0-9_]")  # a byte that goes on a word: a span does not start or end next to one
POINTED_FIELDS = ("command", "path", "content")


@dataclass(frozen=True)
class Span:
    start: int  # where its marker goes in the request (markers stripped)
    text: str  # what a pointer to it writes


def strip_markers(text: str) -> str:
    """``text`` without marker bytes: what a marked reply runs, what a marked request says."""
    return _MARKER.sub("", text)


def has_markers(text: str) -> bool:
    return _MARKER.search(text) is not None


def is_marked(text: str) -> bool:
    """Whether a user message is a request as `mark_request` marks it (not merely one holding stray control bytes)."""
    return has_markers(text) and text == mark_request(text)


def request_spans(text: str) -> list[Span]:
    """The spans of a request (markers stripped first), in order; at most ``len(MARKERS)``."""
    text = strip_markers(text)
    spans, quoted = [], []
    for match in _QUOTED.finditer(text):
        group = next(g for g in (1, 2, 3) if match.group(g) is not None)
        spans.append(Span(match.start(group), match.group(group)))
        quoted.append((match.start(), match.end()))
    for match in _WORD.finditer(text):
        if any(a <= match.start() < b for a, b in quoted):
            continue
        word = match.group()
        lead = len(word) - len(word.lstrip(".-/"))
        word = word.strip(".-/")
        if word.lower() in _NUMERALS:
            spans.append(Span(match.start() + lead, _NUMERALS[word.lower()]))
        elif _NAME_LIKE.search(word):
            spans.append(Span(match.start() + lead, word))
    return sorted(spans, key=lambda s: s.start)[: len(MARKERS)]


def pointer_targets(text: str) -> dict[str, str]:
    """{marker: the text a pointer to it writes} for a request (marked or not)."""
    return {MARKERS[i]: span.text for i, span in enumerate(request_spans(text))}


def last_request(messages: list[dict]) -> str:
    """The chat's last user message, markers stripped: what its next action may point into ("" if none)."""
    return next((strip_markers(m["content"]) for m in reversed(messages)
                 if m.get("role") == "user" and isinstance(m.get("content"), str)), "")  # fmt: skip


def mark_request(text: str) -> str:
    """The request as the model reads it: each span led by its marker (a user's own marker bytes dropped)."""
    text = strip_markers(text)
    for i, span in reversed(list(enumerate(request_spans(text)))):
        text = text[: span.start] + MARKERS[i] + text[span.start :]
    return text


def _at_edges(value: str, start: int, end: int) -> bool:
    before, after = value[start - 1 : start], value[end : end + 1]
    if start >= 2 and value[start - 2] == "\\" and before in "nt":  # an escaped newline or tab ends a word
        before = " "
    return not _EDGE.match(before) and not _EDGE.match(after)


def mark_value(value: str, targets: dict[str, str]) -> str:
    """A JSON-escaped string value with a marker before each occurrence of a target's text (longest first)."""
    first: dict[str, str] = {}
    for marker, text in targets.items():
        first.setdefault(text, marker)
    claimed: list[tuple[int, int, str]] = []
    for text, marker in sorted(first.items(), key=lambda kv: -len(kv[0])):
        escaped = escape_for_json_string(text).decode("utf-8")
        at = value.find(escaped)
        while at >= 0:
            end = at + len(escaped)
            if _at_edges(value, at, end) and not any(a < end and at < b for a, b, _ in claimed):
                claimed.append((at, end, marker))
            at = value.find(escaped, at + 1)
    for at, _, marker in sorted(claimed, reverse=True):
        value = value[:at] + marker + value[at:]
    return value


def mark_action(action_text: str, request: str) -> str:
    """A CMD's or EDIT's JSON text with its pointers to ``request``'s spans (any markers it had redone); other
    text as it is."""
    try:
        action = json.loads(strip_markers(action_text))
    except json.JSONDecodeError:
        return action_text
    if not isinstance(action, dict) or action.get("action") not in ("CMD", "EDIT"):
        return action_text
    targets = pointer_targets(request)
    text = action_json(action)
    for field in POINTED_FIELDS:
        if isinstance(action.get(field), str):
            plain = json.dumps(action[field], ensure_ascii=False)
            text = text.replace(f'"{field}": {plain}', f'"{field}": "{mark_value(plain[1:-1], targets)}"', 1)
    return text


def mark_conversation(messages: list[dict]) -> list[dict]:
    """The chat as a pointer model reads it: each user message marked, each action after it pointing into it (a
    turn's markers are its own request's: numbered on through the conversation, more requests' spans to choose
    from, the conversation suite's turns in a row went 0.416 against 0.472, `catalogue_s67.json`)."""
    out, request = [], None
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if role == "user" and isinstance(content, str):
            request = strip_markers(content)
            message = {**message, "content": mark_request(content)}
        elif role == "assistant" and isinstance(content, str) and request is not None:
            message = {**message, "content": mark_action(content, request)}
        out.append(message)
    return out


def pointer_token_ids(tokenizer, request: str) -> dict[int, list[int]]:
    """{marker token id: the token ids that write its span} for a request, as `ProtocolLogitsProcessor` forces them:
    the span's JSON-escaped text tokenized as it is after its marker in training text."""
    from rusty_hf.protocol.vocabulary import _byte_decoder, token_table

    table = token_table(tokenizer)
    char_of = {b: c for c, b in _byte_decoder().items()}
    out: dict[int, list[int]] = {}
    for marker, text in pointer_targets(request).items():
        escaped = escape_for_json_string(text)
        marker_id = tokenizer.convert_tokens_to_ids(char_of[ord(marker)])
        ids = tokenizer(marker + escaped.decode("utf-8"), add_special_tokens=False)["input_ids"]
        forced = ids[ids.index(marker_id) + 1 :] if marker_id in ids else []
        if b"".join(table.token_bytes[i] or b"" for i in forced) != escaped:  # one token per byte: always writable
            forced = [tokenizer.convert_tokens_to_ids(char_of[b]) for b in escaped]
        out[marker_id] = forced
    return out


def unmarked(messages: list[dict]) -> list[dict]:
    """The chat with its user messages as the user typed them (what the copy bias copies from)."""
    return [{**m, "content": strip_markers(m["content"])} if m.get("role") == "user" and isinstance(m.get("content"), str)
            else m for m in messages]  # fmt: skip


def uses_pointers(model) -> bool:
    """Whether a model was trained on marked requests (``config.copy_pointers``, set by `recipes/sft.py`)."""
    return bool(getattr(getattr(model, "config", None), "copy_pointers", False))


__all__ = ["MARKERS", "POINTED_FIELDS", "Span", "has_markers", "is_marked", "last_request", "mark_action",
           "mark_conversation", "mark_request", "mark_value", "pointer_targets", "pointer_token_ids", "request_spans",
           "strip_markers", "unmarked", "uses_pointers"]  # fmt: skip
