"""Benchmark: is the message after a command true to its output? (issue 37, item 5)

Each development-split request (training phrasings on fixtures no training row uses; never a blind or
conversation text) of an intent that training closes with a status MSG (`dataset.CLOSING_INTENTS`) and whose
reference is a CMD is played as ``rusty-terminal`` plays it (`AgentSession`: persona, constrained decoding, copy
bias; at most two actions), on a fresh copy of its fixture. The closing MSG is sorted into: ``status`` ("Done.",
"Failed: exit code 1.", "Timed out."), ``states_true`` ("It shows: a, b." where each of a, b is a whole line of the first command's output),
``states_false`` (anything else after "It shows:": a made-up file, a garbled or cut line) and ``other`` (any
other message, or none). The conversation suite judges a closing by what it must name; this counts what it names
that is not there. Since the SHOWN slot (`rusty_hf.protocol.copying`) a stated list can only hold output lines, so
``states_false`` counts what gets past it; ``other`` is the free text that remains.

    python3 benchmarks/closing_truth.py --model /tmp/qs47/tiny-grpo --model /tmp/qs42/tiny-grpo \\
        --cache-dir /tmp/qs47/terminal_fixtures                  # writes benchmarks/results/closing_truth.json
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
from collections import Counter
from functools import lru_cache
from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer

from rusty_hf.agent.session import AgentSession
from rusty_hf.agent.workspace import Workspace
from rusty_hf.data.terminal.dataset import CLOSING_INTENTS, dev_requests
from rusty_hf.data.terminal.fixtures import materialize
from rusty_hf.protocol.copying import SHOWN_PREFIX
from rusty_hf.rewards.terminal import DEFAULT_CACHE_DIR
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "closing_truth.json"
KINDS = ("status", "states_true", "states_false", "other")


def _whole_lines(body: str, lines: set[str]) -> bool:
    """Whether ``body`` is output lines joined by ", " (as `dataset.closing_message` joins them), each line whole."""

    @lru_cache(maxsize=None)
    def rest_is_lines(start: int) -> bool:
        for line in lines:
            if body.startswith(line, start):
                end = start + len(line)
                if end == len(body) or (body.startswith(", ", end) and rest_is_lines(end + 2)):
                    return True
        return False

    return bool(body) and rest_is_lines(0)


def kind_of(message: str | None, output: str) -> str:
    if message is None:
        return "other"
    if message.strip() in ("Done.", "Timed out.") or re.fullmatch(r"Failed: exit code -?\d+\.", message.strip()):
        return "status"
    if not message.startswith(SHOWN_PREFIX.strip()):  # `dataset.closing_message`'s form for a stated output
        return "other"
    body = message[len(SHOWN_PREFIX.strip()) :].strip()
    lines = {line.strip() for line in output.splitlines() if line.strip() and not line.startswith("[")}
    true = _whole_lines(body, lines) or (body.endswith(".") and _whole_lines(body[:-1], lines))
    return "states_true" if true else "states_false"


def measure(model_dir: str, cache_dir: str, per_intent: int, seed: int) -> dict:
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, trust_remote_code=True)
    requests = [r for r in dev_requests(per_intent=per_intent, seed=seed)
                if r.intent in CLOSING_INTENTS and r.case.actions[0]["action"] == "CMD"]  # fmt: skip
    rows = []
    for request in requests:
        with tempfile.TemporaryDirectory() as tmp:
            work = shutil.copytree(materialize(request.fixture, cache_dir), Path(tmp) / "work", symlinks=True)
            session = AgentSession(model, tokenizer, Workspace(work), system_prompt=RUSTY_SYSTEM_PROMPT, max_steps=2)
            steps = list(session.respond(request.text))
        output = steps[0].result or ""
        closings = [s.action.message for s in steps[1:] if s.action is not None and s.action.action == "MSG"]
        message = closings[0] if closings else None
        rows.append({"intent": request.intent, "request": request.text, "first_action": steps[0].raw,
                     "output": output[:400], "message": message, "kind": kind_of(message, output)})  # fmt: skip
    counts = Counter(row["kind"] for row in rows)
    return {"model": model_dir, "requests": len(rows), **{k: counts[k] for k in KINDS}, "samples": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", required=True, help="a checkpoint folder (repeat to compare)")
    parser.add_argument("--cache-dir", default=DEFAULT_CACHE_DIR, help="where the fixtures are built once")
    parser.add_argument("--per-intent", type=int, default=2, help="dev requests per intent")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    reports = [measure(m, args.cache_dir, args.per_intent, args.seed) for m in args.model]
    print(f"| model | requests | {' | '.join(KINDS)} |\n|---|---:|{'---:|' * len(KINDS)}")
    for r in reports:
        print(f"| {r['model']} | {r['requests']} | " + " | ".join(str(r[k]) for k in KINDS) + " |")
    flags = [*(f"--model {m}" for m in args.model), f"--cache-dir {args.cache_dir}", f"--per-intent {args.per_intent}",
             f"--seed {args.seed}"]  # fmt: skip
    command = "python3 benchmarks/closing_truth.py " + " ".join(flags)
    Path(args.out).write_text(json.dumps({"command": command, "reports": reports}, indent=1) + "\n")


if __name__ == "__main__":
    main()
