"""Tests for the Python execution reward, its code extraction and the reward registry.

Everything runs for real: completions run in rusty_hf.sandbox behind its server, the tests run here
against the proxies (``remote.py``). The hacks live in ``test_reward_hacks.py``.
"""

from __future__ import annotations

import doctest
import json
import logging

import pytest

from rusty_hf.rewards import REWARD_FUNCS, extract, get_reward_funcs
from rusty_hf.rewards.python_exec import execution
from rusty_hf.rewards.python_exec.execution import execution_reward, get_execution_reward, run_python_tests
from rusty_hf.rewards.extract import completion_text, extract_code

TESTS = """
from solution import add


def test_small():
    assert add(1, 2) == 3


def test_negative():
    assert add(-1, -1) == -2
"""
RIGHT = "def add(a, b):\n    return a + b\n"
HALF_RIGHT = "def add(a, b):\n    return abs(a + b)\n"  # passes test_small only
WRONG = "def add(a, b):\n    return None\n"
HANGS = "def add(a, b):\n    while True:\n        pass\n"
PROSE = "I am not sure how to add numbers, sorry about that."


def fenced(code: str, tag: str = "python") -> str:
    return f"Here is my answer.\n```{tag}\n{code}```\nHope it helps."


class MetricLog:
    """Stands in for TRL's ``log_metric`` / ``log_extra`` callables and keeps what they get."""

    def __init__(self) -> None:
        self.metrics: dict[str, float] = {}
        self.extra: dict[str, list] = {}

    def log_metric(self, name: str, value: float) -> None:
        self.metrics[name] = value

    def log_extra(self, column: str, values: list) -> None:
        self.extra[column] = values


# --- scores ---------------------------------------------------------------------------------


def test_reference_scores_one():
    assert execution_reward([fenced(RIGHT)], [TESTS]) == [1.0]


def test_prose_scores_zero():
    assert execution_reward([PROSE], [TESTS]) == [0.0]


def test_parseable_but_wrong_scores_parse_credit():
    assert execution_reward([fenced(WRONG)], [TESTS]) == [pytest.approx(0.3)]


def test_half_right_gets_half_the_test_credit():
    assert execution_reward([fenced(HALF_RIGHT)], [TESTS]) == [pytest.approx(0.3 + 0.7 * 0.5)]


def test_bare_word_gets_no_parse_credit():
    # "Sure" parses as an expression; the parse credit needs a function or class.
    assert execution_reward(["Sure"], [TESTS]) == [0.0]


def test_the_parsers_warnings_about_model_code_stay_out_of_the_log(recwarn):
    # an invalid escape parses with a warning (printed once per source in a training log)
    code = 'def add(a, b):\n    return a + b  # "\\ "\n\n\ndef f():\n    return "\\ "\n'
    assert execution_reward([fenced(code)], [TESTS]) == [pytest.approx(1.0)]
    assert execution.parse_untrusted(code) is not None and execution.parse_untrusted("def (") is None
    assert not [w for w in recwarn if "escape sequence" in str(w.message)]  # SyntaxWarning (3.12), DeprecationWarning (3.11)


def test_weights_are_configurable():
    reward = get_execution_reward(parse_weight=0.0, pass_weight=2.0)
    assert reward([fenced(HALF_RIGHT), fenced(WRONG)], [TESTS, TESTS]) == [pytest.approx(1.0), 0.0]


def test_timeout_keeps_only_parse_credit_and_is_counted():
    reward, log = get_execution_reward(timeout=1.5), MetricLog()
    assert reward([fenced(HANGS)], [TESTS], log_metric=log.log_metric) == [pytest.approx(0.3)]
    assert log.metrics["execution/timeout_rate"] == 1.0


def test_crash_keeps_only_parse_credit():
    crash = "import os\n\ndef add(a, b):\n    return a + b\n\nos._exit(3)\n"
    assert execution_reward([fenced(crash)], [TESTS]) == [pytest.approx(0.3)]


def outcome(code: str, tests: str):
    return run_python_tests(code, tests, timeout=5)


def counts(code: str, tests: str) -> tuple[int, int]:
    result = outcome(code, tests)
    return result.passed, result.total


def test_the_test_file_never_enters_the_sandbox():
    spy = "import os\n\ndef add(a, b):\n    return sorted(os.listdir('.'))\n"
    tests = "from solution import add\n\ndef test_look():\n    assert add(1, 2) == ['candidate_server.pyc', 'solution.py', 'wire.pyc']\n"
    assert counts(spy, tests) == (1, 1)


def test_an_object_of_the_solution_never_equals_plain_data():
    code = "class Same:\n    def __eq__(self, other):\n        return True\n\ndef add(a, b):\n    return Same()\n"
    assert execution_reward([fenced(code)], [TESTS]) == [pytest.approx(0.3)]


def test_the_solutions_exceptions_arrive_as_their_builtin_class_or_its_own():
    code = (
        "class Overdraft(ArithmeticError):\n    pass\n\n"
        "def pay(amount):\n    if amount > 5:\n        raise Overdraft(amount)\n    raise KeyError(amount)\n"
    )
    tests = (
        "import unittest\nfrom solution import Overdraft, pay\n\n"
        "def test_own_class():\n    try:\n        pay(9)\n    except Overdraft as exc:\n"
        "        assert isinstance(exc, ArithmeticError) and str(exc) == '9'\n        return\n    raise AssertionError\n\n"
        "class PayTests(unittest.TestCase):\n    def test_builtin(self):\n"
        "        with self.assertRaises(KeyError):\n            pay(1)\n"
    )
    assert counts(code, tests) == (2, 2)


def test_an_argument_changed_in_place_is_changed_in_the_test():
    code = "def largest(items):\n    items.sort()\n    return items[-1]\n"
    tests = (
        "from solution import largest\n\n"
        "def test_value():\n    assert largest([3, 9, 1]) == 9\n\n"
        "def test_input_untouched():\n    items = [3, 9, 1]\n    largest(items)\n    assert items == [3, 9, 1]\n"
    )
    result = outcome(code, tests)
    assert (result.passed, result.total) == (1, 2) and "test_input_untouched" in result.failures[0]


def test_returning_the_argument_itself_is_the_callers_object():
    code = "def copy_of(items):\n    return items\n"
    tests = "from solution import copy_of\n\ndef test_copy():\n    items = [1]\n    assert copy_of(items) is not items\n"
    assert outcome(code, tests).passed == 0


def test_generators_stay_lazy_and_iterator_arguments_advance():
    code = "import itertools\n\ndef take(iterable, n):\n    return list(itertools.islice(iterable, n))\n"
    tests = (
        "import itertools\nfrom solution import take\n\n"
        "def test_infinite():\n    assert take(itertools.count(10), 3) == [10, 11, 12]\n\n"
        "def test_iterator():\n    it = iter('abcd')\n    assert take(it, 2) == ['a', 'b'] and next(it) == 'c'\n"
    )
    assert counts(code, tests) == (2, 2)


def test_isinstance_and_issubclass_ask_the_solution():
    code = "class Shape:\n    pass\n\nclass Square(Shape):\n    pass\n\ndef make():\n    return Square()\n"
    tests = (
        "from solution import Shape, Square, make\n\n"
        "def test_kinds():\n    assert isinstance(make(), Shape) and issubclass(Square, Shape)\n"
        "    assert not isinstance(make(), int) and not isinstance(3, Shape)\n"
    )
    assert counts(code, tests) == (1, 1)


def test_a_test_that_swallows_a_broken_conversation_still_ends_the_run():
    code = "import os\n\ndef add(a, b):\n    os._exit(0)\n"
    tests = "from solution import add\n\ndef test_swallow():\n    try:\n        add(1, 2)\n    except BaseException:\n        pass\n"
    result = outcome(code, tests)
    assert result.status == "crash" and result.fraction == 0.0


def test_printing_solution_still_scores():
    chatty = "def add(a, b):\n    print('adding', a, b)\n    return a + b\n"
    assert execution_reward([fenced(chatty)], [TESTS]) == [1.0]


def test_unittest_style_tests_count_each_method():
    tests = (
        "import unittest\nfrom solution import add\n\n"
        "class AddTests(unittest.TestCase):\n"
        "    def test_small(self):\n        self.assertEqual(add(1, 2), 3)\n"
        "    def test_negative(self):\n        self.assertEqual(add(-1, -1), -2)\n"
    )
    assert execution_reward([fenced(HALF_RIGHT)], [tests]) == [pytest.approx(0.65)]


# --- completion formats ---------------------------------------------------------------------


def test_edit_action_is_extracted():
    action = json.dumps({"action": "EDIT", "path": "solution.py", "content": RIGHT})
    assert execution_reward([action], [TESTS]) == [1.0]


def test_conversational_completion():
    completion = [{"role": "assistant", "content": fenced(RIGHT)}]
    assert execution_reward([completion], [TESTS]) == [1.0]


def test_longest_python_block_wins():
    text = f"```python\n{RIGHT}```\nUsage:\n```python\nadd(1, 2)\n```\n```rust\nfn main() {{}}\n```"
    assert extract_code(text, "python") == RIGHT


def test_unclosed_fence_runs_to_the_end():
    assert extract_code(f"Sure:\n```python\n{RIGHT}", "python") == RIGHT


def test_only_foreign_fences_give_no_code():
    assert extract_code("```rust\nfn add() {}\n```", "python") is None


def test_edit_action_for_another_language_is_ignored():
    action = json.dumps({"action": "EDIT", "path": "solution.rs", "content": "fn x() {}"})
    assert extract_code(action + "\n```python\nx = 1\n```", "python") == "x = 1\n"


def test_completion_text_reads_message_parts():
    parts = [{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
    assert completion_text(parts) == "ab"


def test_docstring_examples_hold():
    for module in (extract, execution):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0


# --- batches, metrics, robustness -----------------------------------------------------------


def test_batch_metrics_are_logged_separately():
    log = MetricLog()
    reward = get_execution_reward(timeout=1.5)
    completions = [fenced(RIGHT), PROSE, fenced(HANGS), fenced(HALF_RIGHT)]
    rewards = reward(completions, [TESTS] * 4, log_metric=log.log_metric, log_extra=log.log_extra)
    assert rewards == [1.0, 0.0, pytest.approx(0.3), pytest.approx(0.65)]
    assert log.metrics["execution/parse_rate"] == pytest.approx(3 / 4)
    assert log.metrics["execution/pass_rate"] == pytest.approx((1.0 + 0.5) / 4)
    assert log.metrics["execution/timeout_rate"] == pytest.approx(1 / 4)
    assert log.extra["execution_status"] == ["ok", "syntax_error", "timeout", "ok"]


def test_called_the_way_trl_calls_it():
    log = MetricLog()
    rewards = execution_reward(
        prompts=[[{"role": "user", "content": "add"}]] * 2,
        completions=[[{"role": "assistant", "content": fenced(RIGHT)}], [{"role": "assistant", "content": PROSE}]],
        completion_ids=[[1, 2], [3]],
        tests=[TESTS, TESTS],
        language=["python", "python"],
        difficulty=[1, 1],
        trainer_state=None,
        log_extra=log.log_extra,
        log_metric=log.log_metric,
    )
    assert rewards == [1.0, 0.0] and "execution/pass_rate" in log.metrics


def test_rust_rows_get_none():
    assert execution_reward([fenced("fn add() {}", "rust")], ["#[test] fn t() {}"], language=["rust"]) == [None]


def test_internal_error_gives_none_and_a_log_line(monkeypatch, caplog):
    def broken_sandbox(*args, **kwargs):
        raise RuntimeError("sandbox exploded")

    monkeypatch.setattr(execution, "run", broken_sandbox)
    log = MetricLog()
    with caplog.at_level(logging.WARNING, logger="rusty_hf.rewards.python_exec.execution"):
        rewards = execution_reward([fenced(RIGHT), PROSE], [TESTS, TESTS], log_metric=log.log_metric)
    assert rewards == [None, 0.0]
    assert "sandbox exploded" in caplog.text
    assert log.metrics["execution/error_rate"] == 0.5


def test_malformed_tests_value_gives_none():
    assert execution_reward([fenced(RIGHT)], [None]) == [None]


def test_identical_samples_run_once(monkeypatch):
    calls = []
    real = execution.run

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(execution, "run", counting)
    assert execution_reward([fenced(RIGHT)] * 4, [TESTS] * 4) == [1.0] * 4
    assert len(calls) == 1


def test_missing_tests_column_is_a_clear_error():
    with pytest.raises(ValueError, match="'tests' dataset column"):
        execution_reward([fenced(RIGHT)])


def test_bad_factory_arguments():
    with pytest.raises(ValueError, match="weights"):
        get_execution_reward(parse_weight=-1)
    with pytest.raises(ValueError, match="timeout"):
        get_execution_reward(timeout=0)


# --- registry -------------------------------------------------------------------------------


def test_rewards_keep_their_name():
    assert execution_reward.__name__ == "execution_reward"
    assert get_execution_reward(parse_weight=0.1).__name__ == "execution_reward"


def test_registry_returns_by_name():
    assert get_reward_funcs(["execution"]) == [REWARD_FUNCS["execution"]]


def test_registry_unknown_name_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown reward.*'nope'.*choose from \['execution'"):
        get_reward_funcs(["execution", "nope"])
