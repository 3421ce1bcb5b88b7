"""The quickstart's verdict: every floor of its model as PASS/FAIL, read from the reports it wrote.

    python recipes/tiny/floors.py --out_dir outputs --seconds 812

Reads ``<out>/tiny-grpo/terminal_eval.json`` (held-out terminal requests, with the paired comparison
against the SFT model), ``<out>/tiny-grpo/reward_gain.json`` (held-out coding reward before and after
GRPO) and the run's wall time, prints one line per floor and writes ``<out>/tiny-grpo/floors.json``.
Exit status 0 either way: the verdict is reported, it does not fail the run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

MAX_SECONDS = 900


def _mean(block: dict, metric: str) -> float | None:
    return block[metric]["mean"]


def floors(terminal: dict, gain: dict | None, seconds: float | None,
           e2e_status: int | None = None) -> list[tuple[str, float | None, str, bool | None]]:  # fmt: skip
    """(what, measured, bound, passed) for every floor; passed is None when it was not measured."""
    parts, overall = terminal["parts"], terminal["overall"]
    seen = _mean(parts["seen_values"], "first_action_success")
    new = _mean(parts["new_values"], "first_action_success")
    episode = _mean(overall, "episode_success")
    validity = _mean(overall, "protocol_validity")
    rows = [
        ("first-action success, held-out phrasings on seen values", seen, ">= 0.75", seen >= 0.75),
        ("first-action success, new values (copying)", new, ">= 0.40", new >= 0.40),
        ("multi-turn episode success", episode, ">= 0.40", episode is not None and episode >= 0.40),
        ("protocol validity", validity, ">= 0.99", validity >= 0.99),
    ]
    change = terminal.get("comparison", {}).get("overall (trained intents)", {}).get("first_action_success")
    if change and change["mean"] is not None:
        rows.append((f"terminal success after GRPO − before ({change['mean']:+.3f} ± {change['stderr']:.3f})",
                     change["mean"], ">= -2 SE", change["mean"] >= -2 * change["stderr"]))  # fmt: skip
    else:
        rows.append(("terminal success after GRPO − before", None, ">= -2 SE", None))
    if gain is not None:
        rows.append((f"coding reward gain from GRPO ({gain['gain_in_stderrs']:.1f} SE)", gain["gain"], ">= +0.1 at 2 SE",
                     gain["gain"] >= 0.1 and gain["gain_in_stderrs"] >= 2))  # fmt: skip
    else:
        rows.append(("coding reward gain from GRPO", None, ">= +0.1 at 2 SE", None))
    if e2e_status is not None:  # recipes/tiny/e2e.py: 0 all passed (or skipped), 1 a check failed
        rows.append(("rusty-terminal (and the Space) list the files when asked", None, "e2e.py passes", e2e_status == 0))
    rows.append(("quickstart wall time (s)", seconds, f"<= {MAX_SECONDS}", None if seconds is None else seconds <= MAX_SECONDS))
    return rows


def spreads(terminal: dict) -> list[dict]:
    """The standard error and sample count of the first four floors' measurements (for the rendered table)."""
    parts, overall = terminal["parts"], terminal["overall"]
    blocks = (parts["seen_values"]["first_action_success"], parts["new_values"]["first_action_success"],
              overall["episode_success"], overall["protocol_validity"])  # fmt: skip
    return [{k: block[k] for k in ("stderr", "n") if block.get(k) is not None} for block in blocks]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out_dir", default="outputs", help="the quickstart's OUT_DIR")
    parser.add_argument("--seconds", type=float, default=None, help="the run's wall time so far")
    parser.add_argument("--e2e_status", type=int, default=None, help="recipes/tiny/e2e.py's exit status")
    args = parser.parse_args(argv)
    folder = Path(args.out_dir) / "tiny-grpo"
    try:
        terminal = json.loads((folder / "terminal_eval.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"floors: cannot read {folder / 'terminal_eval.json'} ({exc}). Fix: run the quickstart's terminal evaluation",
              file=sys.stderr)
        return 2
    gain_file = folder / "reward_gain.json"
    gain = json.loads(gain_file.read_text(encoding="utf-8")) if gain_file.is_file() else None
    rows = floors(terminal, gain, args.seconds, args.e2e_status)
    for what, value, bound, passed in rows:
        verdict = "n/a " if passed is None else "PASS" if passed else "FAIL"
        shown = "-" if value is None else f"{value:.3f}" if abs(value) < 10 else f"{value:.0f}"
        print(f"{verdict}  {what}: {shown} (floor {bound})")
    extra = spreads(terminal) + [{}] * len(rows)
    report = [{"floor": what, "value": value, **spread, "bound": bound, "passed": passed}
              for (what, value, bound, passed), spread in zip(rows, extra)]  # fmt: skip
    (folder / "floors.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
