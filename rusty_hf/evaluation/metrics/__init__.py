"""`evaluate` metric modules shipped with rusty_hf, loaded by local path (nothing is fetched).

Each metric is a folder ``rusty_hf/evaluation/metrics/<name>/<name>.py`` holding one ``evaluate.Metric``
subclass, the layout ``evaluate.load`` expects of a local module, so these two lines are the same::

    from rusty_hf.evaluation.metrics import load_metric
    pass_at_k = load_metric("pass_at_k")
    pass_at_k = evaluate.load(str(METRICS_DIR / "pass_at_k"))

Metrics: ``pass_at_k`` (unbiased pass@k from per-sample test results) and ``protocol_validity``
(share of completions that are one valid MSG/CMD/EDIT action). Code execution happens in
``rusty_hf.evaluation`` through the sandboxed rewards, never inside a metric.
"""

from __future__ import annotations

from pathlib import Path

METRICS_DIR = Path(__file__).resolve().parent
METRIC_NAMES: tuple[str, ...] = ("pass_at_k", "protocol_validity")


def metric_path(name: str) -> Path:
    """The folder of the metric ``name``."""
    if name not in METRIC_NAMES:
        raise ValueError(f"unknown rusty_hf metric {name!r}; available: {list(METRIC_NAMES)}")
    return METRICS_DIR / name


def load_metric(name: str, **kwargs):
    """``evaluate.load`` the shipped metric ``name`` from its local folder (works offline).

    Keyword arguments go to ``evaluate.load`` (e.g. ``experiment_id`` for parallel runs).
    """
    import evaluate  # heavy (it imports transformers.pipelines); only when a metric is wanted

    return evaluate.load(str(metric_path(name)), **kwargs)


__all__ = ["METRICS_DIR", "METRIC_NAMES", "load_metric", "metric_path"]
