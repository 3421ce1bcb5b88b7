"""Run a task's ``tests.py`` on the host, against the sandboxed solution, and count the tests that pass.

The tests are ordinary Python (``test_*`` functions with asserts and/or ``unittest.TestCase`` classes,
``from solution import ...``; see ``tasks/README.md``), the same file ``pytest`` runs next to a real
``solution.py``. Here they run in this process, where the candidate's code cannot reach them: their
``import solution`` gets the :class:`~rusty_hf.rewards.python_exec.remote.Remote`'s module proxy, so every call
into the solution is a request to the sandbox and every comparison happens here, on plain data.

    report = run_tests(tests_source, Remote(channel))
    report.passed, report.total, report.failures

A test passes when it returns without raising. The first broken conversation (a forged or malformed
answer, the channel closed, the deadline) ends the whole run: ``report.broken`` says why, and the
caller gives no test credit. Tests run one after another in one conversation (the solution's state
carries over, as it would under pytest in one process).
"""

from __future__ import annotations

import unittest
from dataclasses import dataclass, field

from rusty_hf.rewards.python_exec.proxies import RemoteObject
from rusty_hf.rewards.python_exec.collect import TESTS_FILE, builtins_for, compile_tests, describe, tests_of
from rusty_hf.rewards.python_exec.remote import Remote, SandboxBroken

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
        return describe(exc)
    return None


def run_tests(tests: str, remote: Remote) -> TestReport:
    """Execute ``tests`` here with ``solution`` bound to ``remote`` and run every test it defines."""
    report = TestReport()
    namespace = {"__name__": TESTS_FILE[:-3], "__builtins__": builtins_for(remote.module, remote.public_names)}
    try:
        exec(compile_tests(tests), namespace)
    except BaseException as exc:  # an import the solution cannot satisfy (collection_error vouched for the file)
        report.failures.append(f"import: {describe(exc)}"[:_FAILURE_CHARS])
        report.broken = remote.broken
        return report
    for name, test in tests_of(namespace, foreign=(RemoteObject,)):
        try:
            error = _run_one(test)
        except SandboxBroken:  # out of unittest's machinery, which lets BaseExceptions through
            error = "the sandbox conversation broke"
        if remote.broken is not None:  # whatever the test caught: the run is over
            report.broken = remote.broken
            return report
        report.record(name, error)
    return report
