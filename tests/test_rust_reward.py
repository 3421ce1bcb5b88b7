"""Tests for rusty_hf/rewards/rust/reward.py: the Rust reward's score, its TRL function, cache and failure modes."""

from __future__ import annotations

import logging

import pytest

import rusty_hf.rewards.rust.reward as rust_module
import rusty_hf.rewards.rust.harness as rust_harness
from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards import get_reward_funcs
from rusty_hf.rewards.rust.reward import RustRewardConfig, compute_reward, get_rust_reward, reward_components, score_rust
from rusty_hf.rewards.rust.ast_metrics import AstMetrics, analyze_ast
from rusty_hf.rewards.rust.compiler import CompileResult
from rusty_hf.rewards.rust.toolchain import RustToolchainError, find_toolchain

IDIOMATIC = """//! Word statistics.
use std::collections::HashMap;

/// Counts the words of `text`, compared in lower case.
pub fn word_counts(text: &str) -> HashMap<String, usize> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .fold(HashMap::new(), |mut counts, word| {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
            counts
        })
}

/// Parses a strictly positive integer.
pub fn parse_positive(text: &str) -> Result<u32, String> {
    let n: u32 = text.trim().parse().map_err(|e| format!("{e}"))?;
    match n {
        0 => Err("zero is not positive".to_string()),
        n => Ok(n),
    }
}
"""
UNWRAPS = """pub fn parse_sum(a: &str, b: &str) -> u32 {
    let x: u32 = a.parse().unwrap();
    let y: u32 = b.parse().unwrap();
    let first = a.chars().next().unwrap();
    let last = b.chars().last().expect("b is empty");
    x + y + first.to_digit(10).unwrap() + last.to_digit(10).unwrap()
}
"""
DOES_NOT_COMPILE = """/// Doubles and adds the numbers.
pub fn total(xs: &[i32]) -> i32 {
    let sum: i32 = xs.iter().map(|x| x * 2).sum();
    sum + "one"
}
"""
NOT_RUST = "I'm sorry, I can't write that. Maybe ask me for a Python version instead?"


def fenced(code: str) -> str:
    return f"Here you go:\n```rust\n{code}```\n"


@pytest.fixture(scope="module", autouse=True)
def needs_rustc():
    try:
        find_toolchain()
    except RustToolchainError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def task() -> dict:
    # by name: WRONG_BRACKETS below is a wrong answer to this task, whatever sorts first in the suite
    return load_tasks(language="rust").filter(lambda row: row["name"] == "balanced_brackets")[0]


def test_registered_as_rust_under_its_trl_name():
    (reward,) = get_reward_funcs(["rust"])
    assert reward is rust_module.rust_reward and reward.__name__ == "rust_reward"


def test_idiomatic_beats_unwraps_beats_not_compiling_beats_prose():
    reward = get_rust_reward()
    scores = reward([fenced(IDIOMATIC), fenced(UNWRAPS), fenced(DOES_NOT_COMPILE), NOT_RUST])
    assert scores[0] > scores[1] > scores[2] > scores[3]


def test_normalized_scores_stay_in_the_unit_interval_and_keep_the_order():
    reward = get_rust_reward(normalize=True)
    scores = reward([fenced(IDIOMATIC), fenced(DOES_NOT_COMPILE), NOT_RUST])
    assert all(0.0 <= s <= 1.0 for s in scores) and scores[0] > scores[1] > scores[2]


WRONG_BRACKETS = "pub fn balanced_brackets(_s: &str) -> bool {\n    false\n}\n"


def test_test_pass_term_scales_with_the_task_tests_passed(task):
    assert task["name"] == "balanced_brackets"
    toolchain, config = find_toolchain(), RustRewardConfig(test_pass=10.0)
    right = score_rust(task["solution"], task["tests"], toolchain, config, reference=task["solution"])
    wrong = score_rust(WRONG_BRACKETS, task["tests"], toolchain, config, reference=task["solution"])
    assert right["test_fraction"] == 1.0 and right["components"]["test_pass"] == 10.0
    assert wrong["test_fraction"] < 1.0 and wrong["components"]["test_pass"] == 10.0 * wrong["test_fraction"]


def test_log_metric_gets_compile_and_test_pass_rates(task):
    logged: dict[str, float] = {}
    get_rust_reward()(
        [fenced(task["solution"]), fenced(WRONG_BRACKETS), fenced(DOES_NOT_COMPILE)],
        tests=[task["tests"]] * 3,
        solution=[task["solution"]] * 3,
        log_metric=logged.__setitem__,
    )
    assert logged["rust/compile_rate"] == pytest.approx(2 / 3)
    assert 1 / 3 <= logged["rust/test_pass_rate"] < 2 / 3  # 1 + a fraction + 0, over three
    assert logged["rust/error_rate"] == 0.0 and "rust/panics" in logged


def test_cache_hit_skips_the_compiler(monkeypatch):
    reward = get_rust_reward()
    first = reward([fenced(IDIOMATIC)])

    def no_compiler(*args, **kwargs):
        raise AssertionError("compile_rust called for a cached program")

    monkeypatch.setattr(rust_module, "compile_rust", no_compiler)
    assert reward([f"Same code, other words:\n```rust\n{IDIOMATIC}```"]) == first
    assert reward.cache.hits == 1


def test_disk_cache_is_shared_by_reward_instances(tmp_path, monkeypatch):
    first = get_rust_reward(cache_dir=tmp_path)([fenced(UNWRAPS)])
    monkeypatch.setattr(rust_module, "compile_rust", lambda *a, **k: pytest.fail("compiled again"))
    assert get_rust_reward(cache_dir=tmp_path)([fenced(UNWRAPS)]) == first


def test_rows_with_tests_but_no_reference_get_none_and_say_why_once(task, caplog):
    reward = get_rust_reward()
    with caplog.at_level(logging.ERROR, logger="rusty_hf.rewards.rust.reward"):
        assert reward([fenced(task["solution"])] * 2, tests=[task["tests"]] * 2) == [None, None]
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "`solution` column" in errors[0]


def test_a_broken_reference_gives_none_and_is_said_once(task, caplog):
    reward = get_rust_reward()
    broken = "pub fn balanced_brackets(_text: &str) -> bool { true }\n"  # fails its own tests
    with caplog.at_level(logging.ERROR, logger="rusty_hf.rewards.rust.reward"):
        scores = reward([fenced(task["solution"]), fenced(WRONG_BRACKETS)], tests=[task["tests"]] * 2, solution=[broken] * 2)
    assert scores == [None, None]
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "fails its own test" in errors[0]


def test_the_score_cache_key_covers_the_test_harness(tmp_path, monkeypatch, task):
    columns = {"tests": [task["tests"]], "solution": [task["solution"]]}
    get_rust_reward(cache_dir=tmp_path)([fenced(task["solution"])], **columns)
    monkeypatch.setattr(rust_harness, "PRELUDE", rust_harness.PRELUDE + "// another harness\n")
    fresh = get_rust_reward(cache_dir=tmp_path)
    fresh([fenced(task["solution"])], **columns)
    assert fresh.cache.hits == 0


def test_other_languages_get_none():
    reward = get_rust_reward()
    scores = reward([fenced(IDIOMATIC), "```python\ndef f():\n    return 1\n```"], language=["rust", "python"])
    assert scores[0] is not None and scores[1] is None


def test_a_sample_that_raises_gets_none_and_the_batch_goes_on(caplog):
    reward = get_rust_reward()
    with caplog.at_level(logging.WARNING, logger="rusty_hf.rewards.rust.reward"):
        scores = reward([fenced(IDIOMATIC), [42]])  # a "conversation" that is not a list of messages
    assert scores[0] is not None and scores[1] is None
    assert any("sample skipped" in r.getMessage() for r in caplog.records)


def test_missing_rustc_gives_none_and_logs_once(caplog):
    reward = get_rust_reward(rustc="/nonexistent/bin/rustc")
    with caplog.at_level(logging.ERROR, logger="rusty_hf.rewards.rust.reward"):
        assert reward([fenced(IDIOMATIC), NOT_RUST]) == [None, None]
        assert reward([fenced(UNWRAPS)]) == [None]
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and "rustup" in errors[0]


def test_penalties_are_capped_so_panics_cannot_sink_compiling_code():
    panicky = AstMetrics(parseable=True, n_items=1, n_functions=1, panics=50, cyclomatic=200, unsafe=3)
    compiled = CompileResult(success=True, n_errors=0, n_warnings=0)
    terms = reward_components(compiled, panicky, RustRewardConfig())
    assert (terms["panics"], terms["complexity"], terms["unsafe"]) == (-6.0, -5.0, -1.0)


def test_compute_reward_sums_the_default_weights():
    code = "/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n"
    compiled = CompileResult(success=True, n_errors=0, n_warnings=0)
    # compile 10 + no errors 5 + no warnings 1 + parseable 8 + structure 2 + quality 3 x 1/3 (docs) + docs 1
    assert compute_reward(compiled, analyze_ast(code)) == pytest.approx(28.0)


def test_config_rejects_negative_weights():
    with pytest.raises(ValueError, match="panic_penalty"):
        RustRewardConfig(panic_penalty=-2.0)
