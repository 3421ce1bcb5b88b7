"""pass@k: the chance that at least one of k samples drawn from n solves the task, an `evaluate` metric.

This module executes nothing. The code runs elsewhere (``rusty_hf.evaluation`` scores every sample
through the sandboxed rewards) and this metric receives, per task, the list of per-sample results:
booleans, or the fraction of tests a sample passed (a sample counts as correct when its fraction
reaches ``threshold``, 1.0 by default: all tests pass).

The estimator is the unbiased one of Chen et al. (2021): with n samples of which c are correct,

    pass@k = 1 - C(n - c, k) / C(n, k) = 1 - prod_{i = n - c + 1}^{n} (1 - k / i)

computed as the product on the right, which never forms the huge binomials; the score of a run is
the mean over tasks. Every task needs n >= k.

Usage (loaded by local path, nothing is fetched)::

    from rusty_hf.evaluation.metrics import load_metric
    pass_at_k = load_metric("pass_at_k")            # == evaluate.load(".../rusty_hf/evaluation/metrics/pass_at_k")
    pass_at_k.compute(predictions=[[True, False], [0.5, 1.0]], k=[1, 2])
    # {'pass@1': 0.5, 'pass@2': 1.0}
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import datasets
import evaluate

_DESCRIPTION = "Unbiased pass@k over tasks, from per-sample test results (booleans or pass fractions)."
_CITATION = """\
@article{chen2021codex,
  title={Evaluating Large Language Models Trained on Code},
  author={Chen, Mark and others},
  journal={arXiv preprint arXiv:2107.03374},
  year={2021}
}
"""
_INPUTS = """
Args:
    predictions: one list per task, one entry per sample: True/False, or the fraction of the task's
        tests that sample passed.
    k: the k values to report (default [1]); every task needs at least max(k) samples.
    threshold: the fraction at which a sample counts as correct (default 1.0: all tests pass).
    per_task: also return each task's estimate under "per_task" (default False).
Returns:
    {"pass@<k>": mean over tasks, ...} and, with per_task=True, {"per_task": {"pass@<k>": [...]}}.
"""


def estimate_pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of one task with ``n`` samples of which ``c`` are correct.

    >>> estimate_pass_at_k(n=4, c=1, k=2)   # 1 - C(3, 2) / C(4, 2) = 1 - 3/6
    0.5
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:  # every k-subset holds a correct sample
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def count_correct(results: Sequence[float | bool], threshold: float = 1.0) -> int:
    """How many of one task's per-sample results count as correct."""
    return sum(float(r) >= threshold for r in results)


class PassAtK(evaluate.Metric):
    """pass@k from per-sample results; see the module docstring."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_INPUTS,
            features=datasets.Features({"predictions": datasets.Sequence(datasets.Value("float64"))}),
            license="agpl-3.0",
        )

    def _compute(
        self, predictions: list[list[float]], k: Sequence[int] = (1,), threshold: float = 1.0, per_task: bool = False
    ) -> dict:
        ks = [k] if isinstance(k, int) else list(k)
        if not predictions:
            raise ValueError("pass@k got no tasks: pass one list of per-sample results per task")
        if not ks or any(not isinstance(x, int) or x < 1 for x in ks):
            raise ValueError(f"k must be positive integers, got {k!r}")
        sizes = [len(results) for results in predictions]
        if min(sizes) < max(ks):
            task = sizes.index(min(sizes))
            raise ValueError(
                f"pass@{max(ks)} needs at least {max(ks)} samples per task, but task {task} has {min(sizes)}: "
                f"generate more samples per task or lower k"
            )
        correct = [count_correct(results, threshold) for results in predictions]
        scores = {f"pass@{x}": [estimate_pass_at_k(n, c, x) for n, c in zip(sizes, correct)] for x in ks}
        output: dict = {name: sum(values) / len(values) for name, values in scores.items()}
        if per_task:
            output["per_task"] = scores
        return output
