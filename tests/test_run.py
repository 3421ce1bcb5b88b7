"""rusty_hf.training.run: the tokens/s a run reports after warm-up leaves its first steps out."""

from types import SimpleNamespace

from rusty_hf.training.run import WARMUP_STEPS, ThroughputClock


def _log(clock: ThroughputClock, step: int, tokens: float, now: float, monkeypatch) -> None:
    monkeypatch.setattr("rusty_hf.training.run.time.monotonic", lambda: now)
    clock.on_log(None, SimpleNamespace(global_step=step), None, logs={"num_tokens": tokens, "loss": 1.0})


def test_rate_after_warmup_counts_from_the_first_log_after_the_warmup_steps(monkeypatch):
    clock = ThroughputClock()
    _log(clock, 1, 100, 50.0, monkeypatch)  # step 1: start-up and compilation, 50 s
    assert WARMUP_STEPS == 2
    _log(clock, 2, 200, 51.0, monkeypatch)
    assert clock.rate_after_warmup() is None  # one log after warm-up: no interval yet
    _log(clock, 4, 600, 53.0, monkeypatch)
    assert clock.rate_after_warmup() == 200.0  # (600 - 200) tokens in 2 s


def test_logs_without_token_counts_are_ignored(monkeypatch):
    clock = ThroughputClock()
    monkeypatch.setattr("rusty_hf.training.run.time.monotonic", lambda: 1.0)
    clock.on_log(None, SimpleNamespace(global_step=3), None, logs={"eval_loss": 2.0})
    assert clock.marks == []
