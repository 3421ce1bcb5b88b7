"""Tests for how the execution reward imports and collects a test file (rusty_hf/rewards/python_exec/collect.py).

Star imports, module attributes and the operator rules run for real (the sandbox, the channel, the
host-side tests); the collection check needs no solution. HumanEval-shaped tasks are in
``test_humaneval_style.py``.
"""

from __future__ import annotations

import logging

import pytest

from rusty_hf.rewards.python_exec.execution import execution_reward
from rusty_hf.rewards.python_exec.collect import collection_error
from tests.test_execution_reward import RIGHT as ADD
from tests.test_execution_reward import counts, fenced, outcome


# --- what `import solution` gives --------------------------------------------------------------


def test_a_star_import_binds_the_solutions_public_names():
    code = ADD + "LIMIT = 10\n\ndef _private():\n    return 1\n"
    tests = "from solution import *\n\ndef test_all():\n    assert add(2, 3) == 5 and LIMIT == 10 and '_private' not in dir()\n"
    assert counts(code, tests) == (1, 1)


def test_a_star_import_follows_the_solutions_all():
    code = ADD + "def sub(a, b):\n    return a - b\n\n__all__ = ['sub']\n"
    tests = "from solution import *\n\ndef test_sub_only():\n    assert sub(3, 1) == 2 and 'add' not in globals()\n"
    assert counts(code, tests) == (1, 1)


def test_a_star_import_replaces_no_builtin_and_no_name_the_tests_bound_before():
    # Its own abs, isclose or math would answer the test's tolerance check: they are not bound.
    code = (
        "import types\nmath = types.SimpleNamespace(isclose=lambda *a, **k: True)\n\n"
        "def abs(x):\n    return 0\n\ndef mean(xs):\n    return 0.0\n"
    )
    tests = (
        "import math\nfrom solution import *\n\n"
        "def test_tolerance():\n    assert abs(mean([1.0, 2.0]) - 1.5) < 1e-9\n\n"
        "def test_isclose():\n    assert math.isclose(mean([1.0, 2.0]), 1.5)\n"
    )
    assert counts(code, tests) == (0, 2)


def test_a_module_the_solution_imported_is_this_processs_own():
    code = "import math\nimport os.path as path\n\ndef area(r):\n    return math.pi * r * r\n"
    tests = (
        "import sys\nfrom solution import *\n\n"
        "def test_modules():\n    assert math is sys.modules['math'] and 'path' not in globals()\n"
    )
    assert counts(code, tests) == (1, 1)


def test_module_attributes_answer_as_under_pytest():
    code = ADD + "VOWELS = 'aeiou'\n"
    tests = (
        "import solution\n\n"
        "def test_attributes():\n"
        "    assert solution.VOWELS == 'aeiou' and solution.__name__ == 'solution'\n"
        "    assert 'add' in dir(solution) and hasattr(solution, 'add') and not hasattr(solution, 'sub')\n"
    )
    assert counts(code, tests) == (1, 1)


def test_a_name_the_solution_lacks_is_the_solutions_fault_not_the_files():
    tests = "from solution import add\n\ndef test_add():\n    assert add(1, 1) == 2\n"
    assert execution_reward([fenced("def plus(a, b):\n    return a + b\n")], [tests]) == [pytest.approx(0.3)]


# --- operators between sandboxed objects decide nothing on the candidate's word ----------------------


def test_not_equal_is_the_negation_of_the_solutions_equal():
    code = "class Box:\n    def __init__(self, v):\n        self.v = v\n    __eq__ = __ne__ = lambda self, other: True\n"
    tests = "from solution import Box\n\ndef test_differ():\n    assert Box(1) != Box(2)\n"
    assert counts(code, tests) == (0, 1)


def test_a_comparison_answering_a_truthy_object_is_a_type_error():
    code = (
        "class Yes:\n    def __bool__(self):\n        return True\n\n"
        "class Box:\n    def __eq__(self, other):\n        return Yes()\n"
    )
    tests = "from solution import Box\n\ndef test_equal():\n    assert Box() == Box()\n"
    result = outcome(code, tests)
    assert result.passed == 0 and "not bool" in result.failures[0]


def test_an_operator_with_plain_data_must_answer_an_object():
    code = "class Zero:\n    def __sub__(self, other):\n        return 0\n\ndef mean(xs):\n    return Zero()\n"
    tests = "from solution import mean\n\ndef test_tolerance():\n    assert abs(mean([1.0, 2.0]) - 1.5) < 1e-9\n"
    assert counts(code, tests) == (0, 1)


# --- a file that cannot be collected is reported, not scored ----------------------------------------


@pytest.mark.parametrize(
    "tests, says",
    [
        ("from solution import add\n\ndef test_add(:\n    pass\n", "does not compile"),
        ("import no_such_module_here\nfrom solution import add\n\ndef test_add():\n    pass\n", "ModuleNotFoundError"),
        ("from solution import add\n\nCASES = undefined_table\n\ndef test_add():\n    pass\n", "NameError"),
        ("from solution import *\n\nassert add(1, 2) == 3\n", "defines no test"),
    ],
)
def test_why_a_file_cannot_be_collected(tests, says):
    assert says in collection_error(tests)


def test_a_file_that_reads_star_imported_names_at_module_level_collects():
    tests = "from solution import *\n\ncandidate = add\nCASES = [(1, 2, add(1, 2))]\n\ndef test_add():\n    assert candidate(1, 2) == 3\n"
    assert collection_error(tests) is None


def test_a_broken_file_gets_reward_none_and_one_log_line_for_all_its_samples(caplog):
    tests = "from solution import add\nimport no_such_module_either\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    extra: dict[str, list] = {}
    with caplog.at_level(logging.ERROR, logger="rusty_hf.rewards.python_exec.collect"):
        for _ in range(2):
            rewards = execution_reward(
                [fenced(ADD), fenced("def add(a, b):\n    return 0\n")], [tests] * 2, name=["adder"] * 2,
                log_extra=lambda column, values: extra.update({column: values}),
            )  # fmt: skip
            assert rewards == [None, None] and extra["execution_status"] == ["tests_broken"] * 2
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "'adder'" in lines[0] and "no_such_module_either" in lines[0]
