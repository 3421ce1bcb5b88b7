"""Reading and writing a trainer's log records, for the callbacks of `rusty_hf.trainers`.

    if is_train_log(logs): ...                                  # a training step's log, not an eval one
    record_metric(trainer, "curriculum/level", 2, replace=True)  # into TRL's next log line

Its own module because the callbacks (``callbacks.py``), the curriculum and the training log all use
it, and ``callbacks.add_rl_callbacks`` builds the other two: the helpers sit below all three.
"""

from __future__ import annotations

from typing import Any


def is_train_log(logs: dict | None) -> bool:
    """True for a training-step log (not an eval log, not the end-of-training summary)."""
    if not logs or any(key.startswith("eval_") for key in logs):
        return False
    return "loss" in logs or "reward" in logs


def record_metric(trainer: Any, key: str, value: float, *, replace: bool = False) -> None:
    """Put ``value`` in the trainer's next log, averaged like TRL's own metrics (or the latest, ``replace``).

    TRL's online trainers collect per-log metrics in ``trainer._metrics["train"]`` and clear them
    right after logging, so call this before the log of a step (``on_step_end``), not in ``on_log``.
    """
    metrics = getattr(trainer, "_metrics", None)
    if not isinstance(metrics, dict) or "train" not in metrics:
        return  # not a TRL online trainer: nothing to attach the value to
    if replace:
        metrics["train"][key] = [float(value)]
    else:
        metrics["train"][key].append(float(value))


__all__ = ["is_train_log", "record_metric"]
