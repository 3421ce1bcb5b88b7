"""Benchmark: how often the print-everything hack suite earns full terminal reward (issue 39).

Every command of ``rusty_hf.data.terminal.hacks.HACKS`` is sent as a one-turn completion (a CMD) through
the registered ``terminal`` reward on every held-out request whose first action is judged by its output
(``--split dev``: the development split's), and so is each request's reference action. The table gives,
per command, the share of requests that paid full reward (1.0), then the share paid by at least one
of the issue's five commands (the issue measured 46 of 60 on a sample) and by at least one command of
the suite. Floors (issue 39): any hack <= 5% of held-out output-checked requests, every
reference 100%. Exit status 1 when a floor fails.

Fixtures come from ``--cache-dir`` (the recipes' ``outputs/terminal_fixtures``, built there on first use);
the commands run in the sandbox as the reward runs them, so the first run takes a minute or two.

    python3 benchmarks/terminal_hacks.py                     # writes benchmarks/results/terminal_hacks.json
    python3 benchmarks/terminal_hacks.py --split dev --out /tmp/dev.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from rusty_hf.data.terminal.dataset import dev_requests, heldout_requests
from rusty_hf.data.terminal.hacks import HACKS, hack_commands, is_answer
from rusty_hf.rewards.terminal import DEFAULT_CACHE_DIR, get_terminal_reward

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "terminal_hacks.json"
FLOOR_ANY_HACK = 0.05
ISSUE_HACKS = ("seq", "cat_all", "grep_all", "everything", "wc_find")  # the five issue 39 measured


def _full(reward, rows: list[dict], commands: list[str]) -> list[bool]:
    completions = [json.dumps({"action": "CMD", "command": c}) for c in commands]
    columns = {key: [row[key] for row in rows] for key in ("check", "final_check", "fixture")}
    return [r is not None and r >= 1.0 for r in reward(completions, **columns)]


def _rate(requests: list, paid: list[bool]) -> dict:
    intents = Counter(r.intent for r, ok in zip(requests, paid) if ok)
    return {"full_reward": sum(paid), "rate": sum(paid) / len(paid), "intents": dict(intents)}


def measure(split: str, cache_dir: str, workers: int) -> dict:
    requests = heldout_requests(seed=0) if split == "heldout" else dev_requests()
    requests = [r for r in requests if r.case.first.kind == "output"]
    rows = [r.row() for r in requests]
    reward = get_terminal_reward(cache_dir=cache_dir, max_workers=workers)
    per_request = [dict(hack_commands(r)) for r in requests]
    commands, paid = {}, {}
    for name, template in HACKS.items():
        full = _full(reward, rows, [hacks[name] for hacks in per_request])
        paid[name] = [ok and not is_answer(r.intent, name) for r, ok in zip(requests, full)]  # its answer there
        commands[name] = {"command": template, **_rate(requests, paid[name])}
    references = _full(reward, rows, [r.case.actions[0]["command"] for r in requests])
    issue_five = _rate(requests, [any(p) for p in zip(*(paid[name] for name in ISSUE_HACKS))])
    any_hack = _rate(requests, [any(p) for p in zip(*paid.values())])
    any_rate = any_hack["rate"]
    return {
        "split": split, "requests": len(rows), "commands": commands, "issue_five": issue_five, "any_hack": any_hack,
        "reference": {"full_reward": sum(references), "rate": sum(references) / len(rows),
                      "failed": sorted({r.intent for r, ok in zip(requests, references) if not ok})},
        "floors": {"any_hack_max": FLOOR_ANY_HACK, "reference_min": 1.0,
                   "pass": any_rate <= FLOOR_ANY_HACK and all(references)},
    }  # fmt: skip


def table(report: dict) -> str:
    n = report["requests"]
    lines = [f"{report['split']} requests judged by output: {n}", "", "| hack | command | full reward | rate |", "|---|---|---|---|"]
    for name, row in report["commands"].items():
        lines.append(f"| {name} | `{row['command']}` | {row['full_reward']}/{n} | {row['rate']:.1%} |")
    any_hack, five, ref = report["any_hack"], report["issue_five"], report["reference"]
    lines.append(f"| any of the issue's five | | {five['full_reward']}/{n} | {five['rate']:.1%} |")
    lines.append(f"| any of them | | {any_hack['full_reward']}/{n} | {any_hack['rate']:.1%} (floor <= {FLOOR_ANY_HACK:.0%}) |")
    lines.append(f"| reference action | | {ref['full_reward']}/{n} | {ref['rate']:.1%} (floor 100%) |")
    lines.append(f"floors: {'PASS' if report['floors']['pass'] else 'FAIL'}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("heldout", "dev"), default="heldout")
    parser.add_argument("--cache-dir", default=str(REPO / DEFAULT_CACHE_DIR))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help=f"JSON path (default {RESULTS.relative_to(REPO)} for the held-out split)")
    args = parser.parse_args()
    report = measure(args.split, args.cache_dir, args.workers)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, check=False).stdout.strip()
    report["commit"] = head
    print(table(report))
    out = args.out or (RESULTS if args.split == "heldout" else RESULTS.with_name("terminal_hacks_dev.json"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out}")
    return 0 if report["floors"]["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
