"""Score a checkpoint before and after RL on the held-out prompts and print both means with standard errors.

    python recipes/reward_gain.py --before outputs/tiny-sft --after outputs/tiny-grpo \
        --reward_funcs execution protocol --num_samples 8 --output_file outputs/reward_gain.json
    python recipes/reward_gain.py --before outputs/tiny-sft --after outputs/tiny-grpo --update_model_card   # into the card

Both checkpoints sample with the same seed and settings (`rusty_hf.evaluation.reward_gain`). Exit status 0
either way: the verdict is printed and stored in the JSON, it does not fail the pipeline.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import argparse
import sys
from pathlib import Path

from rusty_hf.hub.checkpoints import check_model_source
from rusty_hf.evaluation.coding import rust_unavailable_reason
from rusty_hf.hub.model_card import save_report, write_model_card
from rusty_hf.evaluation.reward_gain import compare, score_checkpoint, without_rust
from rusty_hf.errors import UserError, run_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="checkpoint folder before RL (e.g. the SFT model)")
    parser.add_argument("--after", required=True, help="checkpoint folder after RL")
    parser.add_argument("--reward_funcs", nargs="+", default=["execution", "protocol"], help="reward names (rusty_hf.rewards)")
    parser.add_argument("--task_languages", nargs="+", default=["python"], choices=["python", "rust"], help="task languages")
    parser.add_argument("--num_samples", type=int, default=8, help="samples per held-out task")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (> 0)")
    parser.add_argument("--max_new_tokens", type=int, default=160, help="generation budget per sample")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed, the same for both checkpoints")
    parser.add_argument("--reward_weights", nargs="+", type=float, default=None,
                        help="one weight per reward, as in the GRPO config (default 1 each)")
    parser.add_argument("--batch_size", type=int, default=4, help="prompts per generate call (x num_samples rows)")
    parser.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu"], help="auto: the GPU when there is one")
    parser.add_argument("--tasks_dir", default=None, help="task suite folder (default: the repository's tasks/)")
    parser.add_argument("--output_file", default=None, help="JSON report (default: none)")
    parser.add_argument("--update_model_card", action="store_true",
                        help="also write the report into the --after folder as reward_gain.json and rebuild its model card")
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    return parser


def run(args: argparse.Namespace) -> dict:
    if args.num_samples < 1 or args.temperature <= 0 or args.max_new_tokens < 1 or args.batch_size < 1:
        raise UserError("need --num_samples >= 1, --temperature > 0, --max_new_tokens >= 1 and --batch_size >= 1")
    for name in (args.before, args.after):
        check_model_source(name)  # both, before the first one is scored for minutes
    if args.update_model_card and not Path(args.after).is_dir():
        raise UserError(f"--update_model_card needs --after to be a local model folder; {args.after} is not one")
    skipped = {}
    rust_asked = "rust" in args.task_languages or "rust" in args.reward_funcs
    if rust_asked and (reason := rust_unavailable_reason()):
        skipped["rust"] = reason
        args.task_languages, args.reward_funcs, args.reward_weights = without_rust(
            args.task_languages, args.reward_funcs, args.reward_weights, reason)
    settings = dict(reward_names=args.reward_funcs, num_samples=args.num_samples, languages=args.task_languages,
                    temperature=args.temperature, max_new_tokens=args.max_new_tokens, seed=args.seed,
                    reward_weights=args.reward_weights, batch_size=args.batch_size, device=args.device,
                    tasks_root=args.tasks_dir)
    before, after = score_checkpoint(args.before, **settings), score_checkpoint(args.after, **settings)
    report = {**compare(before, after), "settings": settings, "skipped": skipped}
    for name, score in (("before", before), ("after", after)):
        parts = ", ".join(f"{k} {v:.3f}" for k, v in score.per_reward.items())
        print(f"{name:>6}: mean total reward {score.mean:.3f} ± {score.stderr:.3f} (n={len(score.totals)}; {parts})  {score.model}")
    verdict = "PASS" if report["passes"] else "FAIL"
    print(f"  gain: {report['gain']:+.3f} ± {report['gain_stderr']:.3f} ({report['gain_in_stderrs']:.1f} SE)  "
          f"[{verdict}: floor +0.1 and 2 SE]")
    outputs = [Path(args.output_file)] if args.output_file else []
    if args.update_model_card:  # the card reads its reports from the model folder
        outputs.append(Path(args.after) / "reward_gain.json")
    for output in dict.fromkeys(p.resolve() for p in outputs):
        output.parent.mkdir(parents=True, exist_ok=True)
        save_report(output, report)
    if args.update_model_card:
        write_model_card(args.after)
        print(f"gain written to {Path(args.after) / 'README.md'}")
    return report


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_cli("reward_gain.py", lambda: run(args) and None, argv)


if __name__ == "__main__":
    sys.exit(main())
