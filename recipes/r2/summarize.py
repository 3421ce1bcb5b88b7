"""The end of recipes/r2/pipeline.sh: one table of what each stage took and what the model can do.

    python3 recipes/r2/summarize.py --out_dir outputs/r2 --budget_min 30 --device cuda --total_seconds 1750

Reads ``stage_times.tsv`` (train's wall time per stage; ``prepare_times.tsv`` too when prepare ran here, listed
apart: the budget is train's), each training stage's ``train_results.json``
(steps, tokens, tokens/s: `rusty_hf.training.run.record_throughput`) and ``trainer_state.json`` (the last
held-out bits per byte of pretraining), the evaluation reports before and after GRPO and the reward gain.
Prints the stages, the results and the issue's floors for this pipeline (judged on one H100-class GPU at
BUDGET_MIN=30), and writes everything to ``<out_dir>/pipeline.json`` and into the final folder. With
``--rust_skipped REASON`` (no rustc on the training machine) the summary says Rust was skipped and why, and the
Rust floor reads "skipped".
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

STAGES = {"pretrain": "r2-pretrain", "sft": "r2-sft", "grpo": "r2-grpo"}


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def stage_rows(out_dir: Path, times_file: str = "stage_times.tsv") -> list[dict]:
    """One row per pipeline stage: its wall time, and for the training stages steps and tokens/s."""
    rows = []
    path = out_dir / times_file
    times = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    for line in filter(None, times):
        title, seconds = line.rsplit("\t", 1)
        row = {"stage": title, "seconds": int(seconds)}
        if title in STAGES:
            train = _read_json(out_dir / STAGES[title] / "train_results.json")
            row |= {"checkpoint": STAGES[title], "steps": train.get("train_steps"),
                    "tokens_per_second": train.get("train_tokens_per_second"), "tokens": train.get("train_num_tokens")}
        rows.append(row)
    return rows


def last_eval(out_dir: Path, folder: str, name: str) -> float | None:
    history = _read_json(out_dir / folder / "trainer_state.json").get("log_history", [])
    return next((entry[name] for entry in reversed(history) if name in entry), None)


def results(out_dir: Path) -> dict:
    after = _read_json(out_dir / "r2-grpo" / "eval_results.json")
    comparison = after.get("comparison", {})
    gain = _read_json(out_dir / "r2-grpo" / "reward_gain.json")
    aggregate = after.get("aggregate", {})

    def pick(language: str, name: str) -> dict | None:
        if language not in aggregate:
            return None
        return {"value": aggregate[language][name], "stderr": aggregate[language]["stderr"][name]}

    return {
        "pretrain_eval_bits_per_byte": last_eval(out_dir, "r2-pretrain", "eval_bits_per_byte"),
        "python_pass@1": pick("python", "pass@1"),
        "rust_pass@1": pick("rust", "pass@1"),
        "rust_compile_rate": pick("rust", "compile_rate"),
        "grpo_python_pass@1_lift": comparison.get("python", {}).get("pass@1"),
        "grpo_rust_compile_rate_lift": comparison.get("rust", {}).get("compile_rate"),
        "reward_before": gain.get("before", {}).get("mean"),
        "reward_after": gain.get("after", {}).get("mean"),
        "reward_gain": gain.get("gain"),
        "reward_gain_stderr": gain.get("gain_stderr"),
    }


def floors(summary: dict) -> list[tuple[str, bool | str | None]]:
    """The issue's floors for the pipeline (meaningful on an H100-class GPU at BUDGET_MIN=30); None = not measured,
    "skipped" = Rust was not scored (no rustc)."""
    r = summary["results"]
    lift = r["grpo_python_pass@1_lift"]
    rust = ("skipped" if summary.get("rust_skipped") else None) if r["rust_compile_rate"] is None \
        else r["rust_compile_rate"]["value"] >= 0.5
    return [
        ("finishes within BUDGET_MIN", summary["total_seconds"] <= summary["budget_min"] * 60),
        ("held-out Python pass@1 >= 0.15", None if r["python_pass@1"] is None else r["python_pass@1"]["value"] >= 0.15),
        ("held-out Rust compile rate >= 0.5", rust),
        ("GRPO lifts Python pass@1 by >= 0.05 and >= 2 SE",
         None if lift is None else lift["delta"] >= 0.05 and lift["z"] >= 2),
    ]


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict) and "value" in value:
        return f"{value['value']:.3f} ± {value['stderr']:.3f}"
    if isinstance(value, dict) and "delta" in value:
        return f"{value['before']:.3f} -> {value['after']:.3f} ({value['delta']:+.3f} ± {value['stderr']:.3f}, {value['z']:+.1f} SE)"
    if isinstance(value, float):
        return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out_dir", required=True)
    parser.add_argument("--budget_min", type=float, required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--total_seconds", type=int, required=True)
    parser.add_argument("--rust_skipped", default="", help="why Rust was skipped (no rustc); empty when it ran")
    args = parser.parse_args(argv)
    out_dir = Path(args.out_dir)
    summary = {"device": args.device, "budget_min": args.budget_min, "total_seconds": args.total_seconds,
               "prepare_stages": stage_rows(out_dir, "prepare_times.tsv"), "stages": stage_rows(out_dir),
               "results": results(out_dir), "rust_skipped": args.rust_skipped or None}
    summary["floors"] = {name: ok for name, ok in floors(summary)}

    print(f"\nRusty-R2 pipeline on {args.device}: train took {args.total_seconds / 60:.1f} of {args.budget_min:g} minutes")
    if summary["rust_skipped"]:
        print(f"Rust skipped, Python only: {summary['rust_skipped']}")
    print("stage | seconds | steps | tokens/s")
    print("--- | ---: | ---: | ---:")
    for row in summary["prepare_stages"]:
        print(f"prepare: {row['stage']} | {row['seconds']} | - | -")
    for row in summary["stages"]:
        print(f"{row['stage']} | {row['seconds']} | {_fmt(row.get('steps'))} | {_fmt(row.get('tokens_per_second'))}")
    print("\nresult | value")
    print("--- | ---")
    for name, value in summary["results"].items():
        print(f"{name} | {_fmt(value)}")
    print("\nfloor (judged on one H100-class GPU, BUDGET_MIN=30) | met")
    print("--- | ---")
    for name, ok in summary["floors"].items():
        print(f"{name} | {'-' if ok is None else ok if isinstance(ok, str) else 'yes' if ok else 'NO'}")
    text = json.dumps(summary, indent=2) + "\n"
    (out_dir / "pipeline.json").write_text(text, encoding="utf-8")
    if (out_dir / "r2-grpo").is_dir():
        (out_dir / "r2-grpo" / "pipeline.json").write_text(text, encoding="utf-8")  # travels with the Hub folder
    print(f"\nwritten to {out_dir / 'pipeline.json'}; the Hub-ready folder is {out_dir / 'r2-grpo'}")
    return summary


if __name__ == "__main__":
    main()
