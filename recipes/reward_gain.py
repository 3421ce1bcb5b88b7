"""Score a checkpoint before and after RL on the held-out prompts and print both means with standard errors.

    python recipes/reward_gain.py --before outputs/tiny-sft --after outputs/tiny-grpo \
        --reward_funcs execution protocol --num_samples 8 --output_file outputs/reward_gain.json

Both checkpoints sample with the same seed and settings (`rusty_hf.reward_gain`). Exit status 0
either way: the verdict is printed and stored in the JSON, it does not fail the pipeline.
"""

from __future__ import annotations

from rusty_hf.upstream_notices import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import argparse
import json
from pathlib import Path

from rusty_hf.evaluation import rust_unavailable_reason
from rusty_hf.reward_gain import compare, score_checkpoint, without_rust


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="checkpoint folder before RL (e.g. the SFT model)")
    parser.add_argument("--after", required=True, help="checkpoint folder after RL")
    parser.add_argument("--reward_funcs", nargs="+", default=["execution", "protocol"])
    parser.add_argument("--task_languages", nargs="+", default=["python"])
    parser.add_argument("--num_samples", type=int, default=8, help="samples per held-out task")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--max_new_tokens", type=int, default=160)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward_weights", nargs="+", type=float, default=None,
                        help="one weight per reward, as in the GRPO config (default 1 each)")
    parser.add_argument("--batch_size", type=int, default=4, help="prompts per generate call (x num_samples rows)")
    parser.add_argument("--device", default="auto", help="auto (the GPU when there is one), cuda or cpu")
    parser.add_argument("--tasks_dir", default=None, help="task suite folder (default: the repository's tasks/)")
    parser.add_argument("--output_file", default=None)
    args = parser.parse_args(argv)
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
    if args.output_file:
        Path(args.output_file).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output_file).write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
