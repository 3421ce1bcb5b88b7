"""Evaluate a Rusty checkpoint: coding tasks, terminal requests, the reward before and after RL.

    coding.py       held-out coding tasks: pass@k, compile rate and protocol validity per language and difficulty
    terminal.py     held-out terminal requests played as rusty-terminal plays them (and the dev and blind splits)
    reward_gain.py  the named rewards on two checkpoints, with the gain and its standard error
    stats.py        the mean and its standard error, which every report gives
    metrics/        the `evaluate` metric modules (pass@k, protocol validity), loaded by path

``recipes/evaluate.py`` and ``recipes/reward_gain.py`` are the entry points. The coding names were
this package's when it was one module, and still import from here::

    from rusty_hf.evaluation import evaluate_model, format_table
    report = evaluate_model(model, tokenizer, num_samples=4, k=[1, 2], languages=["python", "rust"])

They load on first use (PEP 562): the terminal suite and the reward gain need none of them.
"""

from __future__ import annotations

_CODING = (
    "LANGUAGES",
    "SampleScore",
    "compare_reports",
    "evaluate_model",
    "format_comparison",
    "format_table",
    "generate_samples",
    "rust_unavailable_reason",
    "score_samples",
    "to_inference_device",
)


def __getattr__(name: str) -> object:
    if name in _CODING:
        from rusty_hf.evaluation import coding

        return getattr(coding, name)
    if name == "mean_and_stderr":
        from rusty_hf.evaluation.stats import mean_and_stderr

        return mean_and_stderr
    raise AttributeError(f"module 'rusty_hf.evaluation' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_CODING, "mean_and_stderr"])


__all__ = [*_CODING, "mean_and_stderr"]
