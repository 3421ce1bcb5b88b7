"""Did RL help? Score two checkpoints on the same held-out prompts with the same rewards and sampling.

    from rusty_hf.evaluation.reward_gain import score_checkpoint, compare
    before = score_checkpoint("outputs/tiny-sft", reward_names=["execution", "protocol"], num_samples=8)
    after = score_checkpoint("outputs/tiny-grpo", reward_names=["execution", "protocol"], num_samples=8)
    print(compare(before, after))     # means, standard errors, the gain in absolute terms and in SEs

Each checkpoint samples ``num_samples`` completions for every held-out task prompt (the Rusty
persona, as in training) with one seed and one set of sampling settings; every completion gets the
sum of the named rewards, weighted like GRPO's ``reward_weights`` when given (an unscorable sample
counts 0). The standard error of the gain treats the two runs as independent samples:
sqrt(se_before^2 + se_after^2).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from transformers import set_seed

from rusty_hf.data.tasks import load_tasks
from rusty_hf.evaluation.coding import generate_samples, to_inference_device
from rusty_hf.evaluation.stats import mean_and_stderr
from rusty_hf.inference import load_model, load_tokenizer_for
from rusty_hf.rewards import get_reward_funcs, require_sandbox_for
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT
from rusty_hf.errors import UserError


@dataclass
class RewardScore:
    """Per-sample total rewards of one checkpoint, with their mean and standard error."""

    model: str
    totals: list[float]
    per_reward: dict[str, float] = field(default_factory=dict)  # mean of each reward

    @property
    def mean(self) -> float:
        return sum(self.totals) / len(self.totals)

    @property
    def stderr(self) -> float:
        return mean_and_stderr(self.totals)[1] if len(self.totals) >= 2 else float("inf")

    def to_dict(self) -> dict:
        return {**asdict(self), "mean": self.mean, "stderr": self.stderr, "num_samples": len(self.totals)}


def score_checkpoint(
    model_path: str,
    *,
    reward_names: list[str],
    num_samples: int = 8,
    languages: list[str] | None = None,
    split: str = "test",
    temperature: float = 1.0,
    max_new_tokens: int = 160,
    batch_size: int = 4,
    seed: int = 0,
    reward_weights: list[float] | None = None,
    device: str = "auto",
    tasks_root: str | None = None,
) -> RewardScore:
    """Sample every held-out prompt ``num_samples`` times and total the named rewards per sample
    (times ``reward_weights``, one per name, as GRPO weighs them; default 1 each). ``tasks_root``: the
    task suite folder (default: the repository's tasks/)."""
    weights = [1.0] * len(reward_names) if reward_weights is None else [float(w) for w in reward_weights]
    if len(weights) != len(reward_names):
        raise UserError(f"{len(weights)} reward_weights for {len(reward_names)} reward_funcs. Fix: give one weight per reward")
    reward_funcs = get_reward_funcs(reward_names)  # an unknown name fails before the model loads
    require_sandbox_for(reward_names)  # and so does a host that cannot isolate model code (one line naming the fix)
    rows = [row for language in (languages or ["python"])
            for row in load_tasks(tasks_root, language=language, split=split, system_prompt=RUSTY_SYSTEM_PROMPT)]
    if not rows:
        raise UserError(f"no {split} tasks for languages {languages}. Fix: choose python and/or rust")
    model = load_model(model_path, device="cpu", trust_remote_code=True)
    tokenizer = load_tokenizer_for(model, model_path, trust_remote_code=True)
    model = to_inference_device(model, device)
    set_seed(seed)
    completions = generate_samples(model, tokenizer, [r["prompt"] for r in rows], num_samples=num_samples,
                                   temperature=temperature, max_new_tokens=max_new_tokens, batch_size=batch_size)
    flat = [c for per_task in completions for c in per_task]
    columns = {key: [r[key] for r in rows for _ in range(num_samples)] for key in ("tests", "solution", "language", "name")}
    totals = [0.0] * len(flat)
    per_reward = {}
    for func, weight in zip(reward_funcs, weights):
        rewards = [0.0 if r is None or r != r else float(r) for r in func(completions=flat, **columns)]
        per_reward[func.__name__] = sum(rewards) / len(rewards)
        totals = [t + weight * r for t, r in zip(totals, rewards)]
    return RewardScore(model=model_path, totals=totals, per_reward=per_reward)


def without_rust(languages: list[str], reward_names: list[str], reward_weights: list[float] | None,
                 reason: str) -> tuple[list[str], list[str], list[float] | None]:
    """The Python-only settings when Rust cannot be scored (``reason``: why): Rust tasks and the rust reward
    dropped, with their weight. One line says so; the caller records ``reason`` in its report."""
    print(f"Rust skipped ({reason}): scoring Python tasks only, without the rust reward")
    keep = [i for i, name in enumerate(reward_names) if name != "rust"]
    weights = None if reward_weights is None else [reward_weights[i] for i in keep]
    return [lang for lang in languages if lang != "rust"], [reward_names[i] for i in keep], weights


def compare(before: RewardScore, after: RewardScore, min_gain: float = 0.1, min_stderrs: float = 2.0) -> dict:
    """The gain of ``after`` over ``before``, and whether it clears ``min_gain`` and ``min_stderrs`` SEs."""
    gain = after.mean - before.mean
    stderr = math.sqrt(before.stderr**2 + after.stderr**2)
    z = gain / stderr if stderr > 0 else float("inf") if gain > 0 else 0.0
    return {"before": before.to_dict(), "after": after.to_dict(), "gain": gain, "gain_stderr": stderr,
            "gain_in_stderrs": z, "passes": gain >= min_gain and z >= min_stderrs,
            "floor": {"min_gain": min_gain, "min_stderrs": min_stderrs}}
