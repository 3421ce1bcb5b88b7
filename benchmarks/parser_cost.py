"""Benchmark: the time each parser of model output takes on inputs built to make it blow up (floor 50 ms).

A policy under RL writes whatever scores, and each of these parsers runs on every sample of a training
step (the protocol reward, code extraction for the execution and Rust rewards, the teacher's answer
parser, the tool-call response template of the multi-turn environment). One backtracking regex held a
step for minutes on ``"```" + " " * 1600``. Here every entry point meets every pathological input at
1 MB and at ``MAX_SCAN_CHARS`` (the longest text the extractors read at all), timed as the best of three
tries (other jobs on the CPU only ever add time); the floor is 50 ms per parse.

``tests/test_parser_cost.py`` checks the property itself, linear growth, with these same inputs; the
wall-clock figure lives here, where a loaded machine shows as a number instead of a failed test.

    python3 benchmarks/parser_cost.py [--tries 3] [--out benchmarks/results/parser_cost.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rusty_hf.protocol import parse_action, protocol_reward
from rusty_hf.protocol.actions import ProtocolError
from rusty_hf.rewards.extract import MAX_SCAN_CHARS, extract_code, fenced_blocks, json_objects
from rusty_hf.rewards.teacher.rubric import parse_teacher_answer

BUDGET_S = 0.050
MB = 1 << 20
SIZES = (MB, MAX_SCAN_CHARS)
RESULTS = Path(__file__).resolve().parent / "results" / "parser_cost.json"


def pathological(n: int) -> dict[str, str]:
    """Inputs of about ``n`` characters that a backtracking or re-scanning parser takes super-linear time on."""
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
        "nested_objects_unclosed": (nest + "[" + "1," * 4000) * max(1, n // (len(nest) + 8001)),
        "nested_arrays": "[" * n,
        "unterminated_string": '{"action": "MSG", "message": "' + "x" * n,
        "escapes": '{"action": "MSG", "message": "' + "\\\\" * (n // 2),
        "think_unclosed": "<think>" * (n // 7),
        "think_nested": "<think><think>" * (n // 14) + "</think>",
        "action_repeated": '{"action": "CMD", "command": "ls"}' * (n // 34),
        "keys": '{"action": "MSG", ' + '"k": "v", ' * (n // 10),
    }


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


ENTRY_POINTS: dict[str, Callable[[str], object]] = {
    "parse_action": _parse,
    "protocol_reward": lambda text: protocol_reward([text]),
    "extract_code_python": lambda text: extract_code(text, "python"),
    "extract_code_rust": lambda text: extract_code(text, "rust"),
    "fenced_blocks": fenced_blocks,
    "json_objects": json_objects,
    "teacher_answer": parse_teacher_answer,
    "tool_call_response": _parse_response,
}


def fastest(fn: Callable[[str], object], text: str, tries: int = 3) -> float:
    """The best of ``tries`` timings of ``fn(text)``, in seconds."""
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=3, help="timings per parse; the best counts")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = []
    for size in SIZES:
        for case, text in pathological(size).items():
            for entry, fn in ENTRY_POINTS.items():
                rows.append({"entry": entry, "case": case, "chars": len(text), "ms": 1000 * fastest(fn, text, args.tries)})
    worst = sorted(rows, key=lambda r: -r["ms"])
    print(f"{'entry':<22}{'case':<30}{'chars':>10}{'ms':>9}  (the 12 slowest of {len(rows)}; floor {BUDGET_S * 1000:.0f} ms)")
    for r in worst[:12]:
        print(f"{r['entry']:<22}{r['case']:<30}{r['chars']:>10}{r['ms']:>9.1f}")
    over = [r for r in rows if r["ms"] > BUDGET_S * 1000]
    print(f"{len(over)} of {len(rows)} parses over {BUDGET_S * 1000:.0f} ms: {'FAIL' if over else 'PASS'}"
          + (f" (load average {load:.1f} at start: rerun on an idle machine)" if over and load > 0.5 else ""))
    record = {"floor_ms": BUDGET_S * 1000, "pass": not over, "tries": args.tries, "machine": platform.node(),
              "cpus": os.cpu_count(), "load_at_start": load, "python": sys.version.split()[0], "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
