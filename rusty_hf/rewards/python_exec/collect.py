"""How the execution reward imports and collects a Python test file, and the check that it can at all.

A test file reaches its solution the way pytest's would: ``import solution``, ``from solution import
name`` and ``from solution import *`` (HumanEval's and MBPP's style). Here ``solution`` is whatever
the caller binds -- the sandboxed solution's proxy (``host_tests.py``) or, for the check below, a
stand-in -- through the builtins this module builds::

    namespace = {"__name__": "test_solution", "__builtins__": builtins_for(module_of, names_of)}
    exec(compile_tests(source), namespace)
    tests = tests_of(namespace)        # [(name, test), ...] as pytest would collect them

``from solution import *`` binds the solution's public names (its ``__all__``, else its names without
a leading underscore), as Python does, with two exceptions that keep the verdict out of the
candidate's reach: a name that would replace a builtin (a solution's own ``abs`` or ``isinstance``
would answer the test's ``abs(result - 2.5) < 1e-9``) or a name the test file bound before the import
(its ``math``) is left alone; and a module the solution imported is bound as this process's own
module of that name, never as a proxy. A task whose function is named like a builtin imports it by
name (``from solution import max``).

:func:`collection_error` says why a test file cannot be collected whatever the solution: it does not
compile, importing it fails with a stand-in solution that answers every use (so the failure is the
file's own: a missing module, a NameError, an exception at module level), or it defines no test
(asserts at module level are not tests). The reward reports such a file once and scores none of its
samples (``execution.py``); the task loader refuses it (``rusty_hf/data/tasks.py``).
"""

from __future__ import annotations

import ast
import builtins
import functools
import logging
import sys
import types
import unittest
from collections.abc import Callable

logger = logging.getLogger(__name__)

TESTS_FILE = "test_solution.py"
_BUILTIN_NAMES = frozenset(vars(builtins))
_reported: set[str] = set()  # test files already reported: one log line each, not one per sample

ModuleOf = Callable[[], object]
NamesOf = Callable[[], list[tuple[str, str | None]]]


@functools.lru_cache(maxsize=512)
def compile_tests(source: str) -> types.CodeType:
    """The test file's code object (compiled once per distinct file; code objects are immutable)."""
    return compile(source, TESTS_FILE, "exec")


def describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except BaseException:  # a message that cannot be printed is still a failure
        return type(exc).__name__


def star_import(module: object, names: list[tuple[str, str | None]], namespace: dict | None) -> types.ModuleType:
    """What ``from solution import *`` binds in ``namespace`` (see the module docstring)."""
    view = types.ModuleType("solution")
    taken = _BUILTIN_NAMES | set(namespace or ())
    bound = []
    for name, module_name in names:
        if name in taken or name.startswith("__"):
            continue
        if module_name is None:
            value = getattr(module, name)
        elif module_name == name and name in sys.modules and name in sys.stdlib_module_names:
            value = sys.modules[name]  # `import math` in the solution: the test gets this process's math
        else:
            continue
        setattr(view, name, value)
        bound.append(name)
    view.__all__ = bound
    return view


def builtins_for(module_of: ModuleOf, names_of: NamesOf) -> dict:
    """This process's builtins, with ``import solution`` answered by ``module_of()``."""

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "solution" and level == 0:
            module = module_of()
            return star_import(module, names_of(), globals) if fromlist and "*" in fromlist else module
        return builtins.__import__(name, globals, locals, fromlist, level)

    return {**vars(builtins), "__import__": importer}


def tests_of(namespace: dict, foreign: tuple[type, ...] = ()) -> list[tuple[str, object]]:
    """``(name, callable)`` for each test, in the order the file defines them; objects of a
    ``foreign`` type came from the solution and are never tests, whatever their name."""
    found = []
    for name, obj in list(namespace.items()):
        if isinstance(obj, type) and issubclass(obj, unittest.TestCase):
            found += [(case.id(), case) for case in unittest.TestLoader().loadTestsFromTestCase(obj)]
        elif name.startswith("test") and callable(obj) and not isinstance(obj, (type, *foreign)):
            found.append((name, obj))
    return found


class _StandIn:
    """Whatever the solution would give, for :func:`collection_error`: every use answers yes or another stand-in."""

    def __getattr__(self, name: str) -> _StandIn:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args: object, **kwargs: object) -> _StandIn:
        return self

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True

    def __instancecheck__(self, instance: object) -> bool:
        return False

    __getitem__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __call__
    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __contains__ = lambda self, other: True
    __hash__ = object.__hash__


def _free_names(source: str) -> list[tuple[str, None]]:
    """Every name the file reads that is not a builtin: what its star import may have to supply."""
    loaded = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    return [(name, None) for name in sorted(loaded - _BUILTIN_NAMES)]


@functools.lru_cache(maxsize=512)
def collection_error(tests: str) -> str | None:
    """Why ``tests`` cannot be collected whatever the solution (its own fault), or None when it can."""
    try:
        code = compile_tests(tests)
    except (SyntaxError, ValueError) as exc:
        return f"it does not compile: {describe(exc)}"
    stand_in = _StandIn()
    names = _free_names(tests)
    namespace = {"__name__": TESTS_FILE[:-3], "__builtins__": builtins_for(lambda: stand_in, lambda: names)}
    try:
        exec(code, namespace)
    except BaseException as exc:  # noqa: BLE001 -- whatever the file raised, it raised it with no solution at fault
        return f"importing it fails whatever the solution: {describe(exc)}"[:500]
    if not tests_of(namespace, foreign=(_StandIn,)):
        return "it defines no test: write test_* functions or unittest.TestCase classes (asserts at module level are not tests)"
    return None


def report_broken(tests: str, task: object, problem: str) -> None:
    """Log, once per distinct file, that ``tests`` (of the task named ``task``, if a str) cannot be collected."""
    if tests not in _reported:
        _reported.add(tests)
        label = f"task {task!r}" if isinstance(task, str) else f"the task whose tests begin {tests.strip()[:60]!r}"
        logger.error("execution_reward: the %s of %s cannot be collected: %s. Its samples get reward None "
                     "until the file is fixed", TESTS_FILE, label, problem)  # fmt: skip
