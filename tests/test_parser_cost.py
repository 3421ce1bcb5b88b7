"""Every parser that reads model output costs time linear in its input.

A policy under RL writes whatever scores, and each of these runs on every sample of a training step
(the protocol reward, code extraction for the execution and Rust rewards, the teacher's answer
parser, the tool-call response template of the multi-turn environment). One backtracking regex held
a step for minutes on ``"```" + " " * 1600``; here every entry point gets inputs built to make a
backtracking or re-scanning parser blow up, up to 1 MB, and must answer within 50 ms (the issue's
floor, checked on the best of three tries so a noisy shared CPU does not fail it).
"""

import json
import re
import time

import pytest

from rusty_hf.protocol import parse_action, protocol_reward
from rusty_hf.protocol.actions import ProtocolError
from rusty_hf.rewards.extract import MAX_SCAN_CHARS, extract_code, fenced_blocks, json_objects
from rusty_hf.rewards.teacher_rubric import parse_teacher_answer

BUDGET_S = 0.050
MB = 1 << 20


def _pathological(n: int) -> dict[str, str]:
    nest = '{"a":' * 990  # just under the decoder's recursion limit, so each start reads far
    return {
        "fence_spaces": "```" + " " * n + "x",
        "fence_tabs_newline": "```" + " \t" * (n // 2) + "\nx",
        "fence_body_spaces": "```json\n{" + " " * n,
        "backticks": "`" * n,
        "fence_lines": "```\n" * (n // 4),
        "fence_then_spaces_no_close": "```python\n" + " " * n,
        "open_close_ticks_spaces": ("```" + " " * 64 + "x\n") * (n // 68),
        "spaces": " " * n,
        "newlines": "\n" * n,
        "braces": "{" * n,
        "closing_braces": "}" * n,
        "brace_quotes": '{"' * (n // 2),
        "nested_objects_unclosed": (nest + "[" + "1," * 4000) * (n // (len(nest) + 8001)),
        "nested_arrays": "[" * n,
        "unterminated_string": '{"action": "MSG", "message": "' + "x" * n,
        "escapes": '{"action": "MSG", "message": "' + "\\\\" * (n // 2),
        "think_unclosed": "<think>" * (n // 7),
        "think_nested": "<think><think>" * (n // 14) + "</think>",
        "action_repeated": '{"action": "CMD", "command": "ls"}' * (n // 34),
        "keys": '{"action": "MSG", ' + '"k": "v", ' * (n // 10),
    }


# 1 MB, and just under the longest text the extractors read at all (the worst case for them).
CASES = {f"{name}@{size}": text for size in (MB, MAX_SCAN_CHARS) for name, text in _pathological(size).items()}


def _fastest_of(fn, text: str, tries: int = 3) -> float:
    """The best of up to ``tries`` timings: other jobs on the CPU only ever add time."""
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
        if best <= BUDGET_S:
            break
    return best


def _parse(text: str) -> None:
    try:
        parse_action(text)
    except ProtocolError:
        pass


def _parse_response(text: str) -> None:
    # The multi-turn environment's tool-call parsing: the patterns of RESPONSE_TEMPLATE, as
    # transformers' parse_response applies them (search for the open, then the close, then tags).
    from rusty_hf.agent.tool_calling import RESPONSE_TEMPLATE

    fields = RESPONSE_TEMPLATE["fields"]["tool_calls"]
    opener, closer = re.compile(fields["open_pattern"]), re.compile(fields["close_pattern"])
    tag = re.compile(fields["content_args"]["tag_pattern"])
    pos = 0
    while match := opener.search(text, pos):
        close = closer.search(text, match.end())
        end = close.start() if close else len(text)
        list(tag.finditer(text, match.end(), end))
        pos = close.end() if close else len(text)


ENTRY_POINTS = {
    "parse_action": _parse,
    "protocol_reward": lambda text: protocol_reward([text]),
    "extract_code_python": lambda text: extract_code(text, "python"),
    "extract_code_rust": lambda text: extract_code(text, "rust"),
    "fenced_blocks": fenced_blocks,
    "json_objects": json_objects,
    "teacher_answer": parse_teacher_answer,
    "tool_call_response": _parse_response,
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_parse_time_is_bounded_on_pathological_input(entry, case):
    text = CASES[case]
    elapsed = _fastest_of(ENTRY_POINTS[entry], text)
    assert elapsed <= BUDGET_S, f"{entry} took {elapsed * 1000:.0f} ms on {case} ({len(text)} chars)"


def test_the_probe_input_is_answered_at_once():
    start = time.perf_counter()
    with pytest.raises(ProtocolError):
        parse_action("```" + " " * 1600 + "x")
    assert time.perf_counter() - start < BUDGET_S


def test_linear_fence_stripping_keeps_the_old_meaning():
    body = '{"action": "MSG", "message": "hi"}'
    for text in (f"```json\n{body}\n```", f"```{body}```", f"```  json  \n  {body}  \n\n```", f"``` \t\n{body}```"):
        assert parse_action(text).message == "hi", text
    for text in ("```", "````", f"```json\n{body}", f"{body}\n```", f"```json\n{body}\n``` trailing"):
        with pytest.raises(ProtocolError):
            parse_action(text)


def test_linear_fenced_blocks_keep_the_old_meaning():
    text = "a\n```python\nx = 1\n```\nb\n  ````rust extra\nfn f() {}\n  ```````\n```\nopen"
    assert fenced_blocks(text) == [("python", "x = 1\n"), ("rust", "fn f() {}\n"), ("", "open")]
    assert fenced_blocks("```py") == [("py", "")]


def test_json_objects_still_finds_objects_after_failed_starts():
    text = 'noise {"a": [1, {"b": 2}] {"c": 3} tail {"d": {"e": 4}}'
    assert json_objects(text) == [{"b": 2}, {"c": 3}, {"d": {"e": 4}}]


def test_unclosed_thinking_still_fails_and_closed_thinking_is_dropped():
    assert parse_teacher_answer('<think>{"score": 1}</think>{"score": 8}').score == 8.0
    assert parse_teacher_answer('<think>{"score": 1}{"score": 8}') is None
    assert parse_teacher_answer('<thi<think>x</think>nk>{"score": 8}') is None


def test_json_objects_reads_objects_longer_than_its_first_slices():
    content = "x = 1\n" * 3000  # 18,000 characters: past both of the decoder's first slices
    edit = {"action": "EDIT", "path": "solution.py", "content": content}
    text = "prose {" + " " * 100 + '"a": [1, 2' + "\n" + json.dumps(edit) + " done"
    assert json_objects(text)[-1] == edit
    assert extract_code(text, "python") == content
