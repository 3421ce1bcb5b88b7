"""Run a task's ``tests.py`` on the host, against the sandboxed solution, and count the tests that pass.

The tests are ordinary Python (``test_*`` functions with asserts and/or ``unittest.TestCase`` classes,
``from solution import ...``; see ``tasks/README.md``), the same file ``pytest`` runs next to a real
``solution.py``. Here they run in this process, where the candidate's code cannot reach them: their
``import solution`` gets the :class:`~rusty_hf.rewards.remote.Remote`'s module proxy, so every call
into the solution is a request to the sandbox and every comparison happens here, on plain data.

    report = run_tests(tests_source, Remote(channel))
    report.passed, report.total, report.failures

A test passes when it returns without raising. The first broken conversation (a forged or malformed
answer, the channel closed, the deadline) ends the whole run: ``report.broken`` says why, and the
caller gives no test credit. Tests run one after another in one conversation (the solution's state
carries over, as it would under pytest in one process).
"""

from __future__ import annotations

import builtins
import functools
import unittest
from dataclasses import dataclass, field

from rusty_hf.rewards.proxies import RemoteObject
from rusty_hf.rewards.remote import Remote, SandboxBroken

TESTS_FILE = "test_solution.py"
_MAX_FAILURES = 5
_FAILURE_CHARS = 300


@dataclass
class TestReport:
    passed: int = 0
    total: int = 0
    failures: list[str] = field(default_factory=list)
    broken: str | None = None  # why the conversation ended early; no test credit then

    def record(self, name: str, error: str | None) -> None:
        self.total += 1
        if error is None:
            self.passed += 1
        elif len(self.failures) < _MAX_FAILURES:
            self.failures.append(f"{name}: {error}"[:_FAILURE_CHARS])


@functools.lru_cache(maxsize=512)
def compile_tests(source: str):
    """The test file's code object (compiled once per distinct file; code objects are immutable)."""
    return compile(source, TESTS_FILE, "exec")


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}"
    except BaseException:  # a message that cannot be printed is still a failure
        return type(exc).__name__


def _builtins_for(remote: Remote) -> dict:
    """This process's builtins, with ``import solution`` answered by the sandboxed solution."""

    def importer(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "solution" and level == 0:
            return remote.module()
        return builtins.__import__(name, globals, locals, fromlist, level)

    return {**vars(builtins), "__import__": importer}


def _tests_of(namespace: dict) -> list[tuple[str, object]]:
    """``(name, callable)`` for each test, in the order the file defines them."""
    found = []
    for name, obj in list(namespace.items()):
        if isinstance(obj, type) and issubclass(obj, unittest.TestCase):
            found += [(case.id(), case) for case in unittest.TestLoader().loadTestsFromTestCase(obj)]
        elif name.startswith("test") and callable(obj) and not isinstance(obj, (type, RemoteObject)):
            found.append((name, obj))  # a solution's function imported as test_x is not a test
    return found


def _run_one(test: object) -> str | None:
    """None when ``test`` passes, else what went wrong."""
    if isinstance(test, unittest.TestCase):
        result = unittest.TestResult()
        test.run(result)
        problems = result.failures + result.errors
        return problems[0][1].strip().splitlines()[-1] if problems else None
    try:
        test()
    except BaseException as exc:  # SandboxBroken included: the caller looks at remote.broken
        return _describe(exc)
    return None


def run_tests(tests: str, remote: Remote) -> TestReport:
    """Execute ``tests`` here with ``solution`` bound to ``remote`` and run every test it defines."""
    report = TestReport()
    namespace = {"__name__": TESTS_FILE[:-3], "__builtins__": _builtins_for(remote)}
    try:
        exec(compile_tests(tests), namespace)
    except BaseException as exc:  # an import the solution cannot satisfy: no test can run
        report.failures.append(f"import: {_describe(exc)}"[:_FAILURE_CHARS])
        report.broken = remote.broken
        return report
    for name, test in _tests_of(namespace):
        try:
            error = _run_one(test)
        except SandboxBroken:  # out of unittest's machinery, which lets BaseExceptions through
            error = "the sandbox conversation broke"
        if remote.broken is not None:  # whatever the test caught: the run is over
            report.broken = remote.broken
            return report
        report.record(name, error)
    return report
