"""Means with standard errors: the one statistic every evaluation report here gives (coding, terminal, reward gain).

    from rusty_hf.evaluation.stats import mean_and_stderr
    mean, stderr = mean_and_stderr([1.0, 0.0, 1.0, 1.0])
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean_and_stderr(values: Sequence[float]) -> tuple[float, float]:
    """The mean and its standard error (sample standard deviation / sqrt(n); 0 for fewer than 2 values)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)


__all__ = ["mean_and_stderr"]
