"""Guessers: wrong solutions that answer every call with one constant, one blanket raise, or an echo.

A test that a guesser passes observes nothing a solution must compute (``is_leap_year(2024) is True``
alone passes for ``return True``); under an RL policy that is credit for a constant. The task suite
keeps every test out of their reach (``tests/test_tasks.py``), and the reward-hack suite sends some
of them through the real reward (``tests/test_reward_hacks.py``).

    for label, code in guessers(solution):
        passed = run_tests_directly(tests, code)     # {test name: passed?}

The tests run here, in-process, against a module made from the guesser's code (our own code, not
hostile): stricter than the reward, where an always-equal object never equals plain data.
"""

from __future__ import annotations

import ast
import builtins
import types
import unittest
from collections.abc import Iterator

CONSTANTS = ("None", "True", "False", "0", "1", "-1", "''", "[]", "{}", "()", "0.0")
RAISES = ("ValueError", "KeyError", "IndexError", "TypeError", "ZeroDivisionError", "StopIteration", "Exception")
ECHO = "return args[0] if args else None"

# Every method and operator of every class answers the same way, and every comparison (==, != and
# the orderings alike) says yes: a test decided by the candidate's own answer to one is caught.
_CLASS = """
class {name}:
    def __init__(self, *args, **kwargs):
        pass
    def __getattr__(self, attr):
        def method(*args, **kwargs):
            {body}
        return method
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = lambda self, other: True
    def __hash__(self):
        return 0
    def __len__(self):
        return 0
    def __iter__(self):
        return iter(())
    def __next__(self):
        raise StopIteration
    def __contains__(self, item):
        return True
    def __call__(self, *args, **kwargs):
        {body}
""" + "".join(f"    def __{op}__(self, *args):\n        {{body}}\n" for op in (
    "add", "radd", "sub", "mul", "rmul", "matmul", "truediv", "abs", "neg"))  # fmt: skip


def behaviours() -> Iterator[tuple[str, str]]:
    """(label, function body) for each guesser."""
    for constant in CONSTANTS:
        yield f"return {constant}", f"return {constant}"
    for exception in RAISES:
        yield f"raise {exception}", f"raise {exception}('guess')"
    yield "echo the first argument", ECHO


def guesser(solution: str, body: str) -> str:
    """The reference's top-level names, every function and class answering with ``body``.

    Exception classes stay real subclasses of their bases: declaring one is not a guess."""
    parts = []
    for node in ast.parse(solution).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parts.append(f"def {node.name}(*args, **kwargs):\n    {body}\n")
        elif isinstance(node, ast.ClassDef):
            bases = [ast.unparse(b) for b in node.bases]
            if any(b.endswith(("Error", "Exception")) for b in bases):
                parts.append(f"class {node.name}({', '.join(bases)}):\n    pass\n")
            else:
                parts.append(_CLASS.format(name=node.name, body=body))
    return "\n".join(parts)


def guessers(solution: str) -> Iterator[tuple[str, str]]:
    for label, body in behaviours():
        yield label, guesser(solution, body)


def run_tests_directly(tests: str, code: str) -> dict[str, bool]:
    """Run ``tests`` in this process against a module built from ``code``: {test: passed}."""
    module = types.ModuleType("solution")
    exec(compile(code, "solution.py", "exec"), module.__dict__)

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        return module if name == "solution" else builtins.__import__(name, globals, locals, fromlist, level)

    namespace = {"__name__": "test_solution", "__builtins__": {**vars(builtins), "__import__": importer}}
    exec(compile(tests, "test_solution.py", "exec"), namespace)
    results = {}
    for name, obj in list(namespace.items()):
        if isinstance(obj, type) and issubclass(obj, unittest.TestCase):
            for case in unittest.TestLoader().loadTestsFromTestCase(obj):
                outcome = unittest.TestResult()
                case.run(outcome)
                results[case.id()] = outcome.wasSuccessful()
        elif name.startswith("test") and callable(obj) and not isinstance(obj, type):
            try:
                obj()
                results[name] = True
            except Exception:
                results[name] = False
    return results
