"""The `evaluate` metric modules in rusty_hf/evaluation/metrics: loaded by local path offline, pass@k exact, protocol validity."""

import itertools
import math
import socket
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import tomllib

from rusty_hf.evaluation.metrics import METRIC_NAMES, METRICS_DIR, load_metric
from rusty_hf.protocol import ProtocolError, parse_action


@pytest.fixture(scope="module")
def pass_at_k():
    return load_metric("pass_at_k")


@pytest.fixture(scope="module")
def estimate(pass_at_k):
    """The estimator of the module evaluate actually loaded (not a second import of the file)."""
    return sys.modules[type(pass_at_k).__module__].estimate_pass_at_k


def test_metrics_load_by_local_path_with_the_network_cut(monkeypatch):
    import evaluate

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access while loading a local metric: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    for name in METRIC_NAMES:
        metric = evaluate.load(str(METRICS_DIR / name))
        assert isinstance(metric, evaluate.Metric) and type(metric).__name__ != "Metric"


def test_pass_at_k_equals_brute_force_over_every_k_subset(estimate):
    for n in range(1, 7):
        for c in range(n + 1):
            samples = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                subsets = list(itertools.combinations(samples, k))
                exact = Fraction(sum(any(s) for s in subsets), len(subsets))
                assert estimate(n, c, k) == pytest.approx(float(exact), abs=1e-12), (n, c, k)


def test_pass_at_k_stays_exact_where_binomials_overflow_floats(estimate):
    n, c, k = 2000, 7, 500  # C(2000, 500) has ~490 digits: no float holds it
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert estimate(n, c, k) == pytest.approx(float(exact), rel=1e-12)


def test_pass_at_k_metric_averages_tasks_and_counts_full_passes_only(pass_at_k):
    # task 1: one of two samples correct; task 2: fractions, only 1.0 counts; task 3: none correct
    out = pass_at_k.compute(predictions=[[True, False], [0.5, 1.0], [0.9, 0.0]], k=[1, 2], per_task=True)
    assert out["per_task"] == {"pass@1": [0.5, 0.5, 0.0], "pass@2": [1.0, 1.0, 0.0]}
    assert out["pass@1"] == pytest.approx(1 / 3) and out["pass@2"] == pytest.approx(2 / 3)
    assert pass_at_k.compute(predictions=[[0.9, 0.0]], k=[1], threshold=0.5)["pass@1"] == 0.5


def test_pass_at_k_names_the_fix_when_a_task_has_fewer_samples_than_k(pass_at_k):
    with pytest.raises(ValueError, match="needs at least 4 samples per task.*lower k"):
        pass_at_k.compute(predictions=[[True] * 4, [True, False]], k=[1, 4])


def test_protocol_validity_counts_actions_and_error_kinds():
    texts = [
        '{"action": "MSG", "message": "Done. Tests pass."}',
        '```json\n{"action": "CMD", "command": "ls -la"}\n```',
        "Sure! Here is the code.",
        '{"action": "RUN", "command": "ls"}',
        '{"action": "MSG", "message": "a"} {"action": "MSG", "message": "b"}',
    ]
    expected_errors = {}
    for text in texts[2:]:
        with pytest.raises(ProtocolError) as err:
            parse_action(text)
        expected_errors[err.value.kind] = expected_errors.get(err.value.kind, 0) + 1
    out = load_metric("protocol_validity").compute(predictions=texts)
    assert out["protocol_validity"] == pytest.approx(2 / 5)
    assert out["actions"] == {"CMD": 1, "MSG": 1}
    assert out["errors"] == expected_errors and out["num_completions"] == 5


def test_metric_modules_are_shipped_as_package_data():
    config = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["rusty_hf.evaluation.metrics"]
    shipped = {p.relative_to(METRICS_DIR) for pattern in patterns for p in METRICS_DIR.glob(pattern)}
    for name in METRIC_NAMES:
        assert Path(name, f"{name}.py") in shipped
