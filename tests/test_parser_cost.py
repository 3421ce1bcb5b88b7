"""Every parser that reads model output costs time linear in its input.

A policy under RL writes whatever scores, and each of these runs on every sample of a training step
(the protocol reward, code extraction for the execution and Rust rewards, the teacher's answer
parser, the tool-call response template of the multi-turn environment). One backtracking regex held
a step for minutes on ``"```" + " " * 1600``. Every entry point gets inputs built to make a
backtracking or re-scanning parser blow up (``benchmarks/parser_cost.py``, which also times them
against the 50 ms floor), at 1 MB and at the extractors' scan limit (``MAX_SCAN_CHARS``, past which
they read nothing), each against an eighth of it: eight times the input may cost at most ``MAX_GROWTH``
times the time (linear: 8, quadratic: 64), whatever else the machine is doing.
"""

import json
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from parser_cost import ENTRY_POINTS, SIZES, fastest, pathological  # noqa: E402

from rusty_hf.protocol import parse_action  # noqa: E402
from rusty_hf.protocol.actions import ProtocolError  # noqa: E402
from rusty_hf.rewards.extract import MAX_FENCED_BLOCKS, extract_code, fenced_blocks, json_objects  # noqa: E402
from rusty_hf.rewards.teacher.rubric import parse_teacher_answer  # noqa: E402

MAX_GROWTH = 24  # three times linear, a third of quadratic
SLACK_S = 0.005  # timer and cache noise on parses that take microseconds
CASES = {size: (pathological(size // 8), pathological(size)) for size in SIZES}  # (an eighth, the whole)


def _grows_linearly(fn, small: str, large: str) -> tuple[bool, float, float]:
    """Whether ``fn`` on ``large`` stays within the growth bound of ``fn`` on ``small``; a pass needs one
    good pair of timings, a failure three (a busy CPU only ever adds time, to either side)."""
    for tries in (1, 3):
        t_small, t_large = fastest(fn, small, tries), fastest(fn, large, tries)
        if t_large <= MAX_GROWTH * t_small + SLACK_S:
            return True, t_small, t_large
    return False, t_small, t_large


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
@pytest.mark.parametrize("case", sorted(pathological(8)))
@pytest.mark.parametrize("size", SIZES)
def test_parse_time_grows_linearly_on_pathological_input(entry, case, size):
    small, large = CASES[size][0][case], CASES[size][1][case]
    ok, t_small, t_large = _grows_linearly(ENTRY_POINTS[entry], small, large)
    assert ok, f"{entry} on {case}: {t_small * 1000:.1f} ms at {len(small)} chars, {t_large * 1000:.1f} ms at {len(large)}"


def test_the_probe_input_is_answered_at_once():
    start = time.perf_counter()
    with pytest.raises(ProtocolError):
        parse_action("```" + " " * 1600 + "x")
    assert time.perf_counter() - start < 1.0  # microseconds normally; the regex it replaced took minutes


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


def test_only_the_first_blocks_of_a_runaway_are_read():
    text = "```python\nx = 1\n```\n" * (MAX_FENCED_BLOCKS + 5) + "```python\nhidden = 2\n```\n"
    blocks = fenced_blocks(text)
    assert len(blocks) == MAX_FENCED_BLOCKS and blocks[-1] == ("python", "x = 1\n")
    assert extract_code(text) == "x = 1\n"  # the block past the cap is never read
    assert len(fenced_blocks("```\n" * 50_000)) == MAX_FENCED_BLOCKS


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
