"""The Python execution reward: run a completion's code against a task's tests in the sandbox.

Score per completion (weights configurable through :func:`get_execution_reward`)::

    parse_weight  if the extracted code parses and defines a function or class
  + pass_weight x (tests passed / tests)   -- 0 for this part on a timeout or a crash

The tests of a task (``tasks/python/<name>/tests.py``: ``test_*`` functions with plain asserts
and/or ``unittest.TestCase`` classes, importing from ``solution``) run under a small harness that
counts passes one test at a time, so half-right code earns half the test credit. Everything runs
in a fresh :mod:`rusty_hf.sandbox` work dir with ``python -I -S`` (standard library only), one
subprocess per completion, a batch spread over a thread pool. The parent process only calls
``ast.parse`` on model output, which never executes it.

What the harness does against a program gaming its score: the program's stdout goes to
/dev/null; the report is written to a duplicate of the real stdout by functions bound before the
program is imported, prefixed with a per-run nonce that the harness reads from a file and deletes
before the import. What it does not stop: a program that walks interpreter frames to find the
nonce, or returns objects whose ``__eq__`` is always true (tests that compare with ``==`` accept
them). Hostile code is contained by the sandbox, not by the harness.

Usage with TRL (the dataset needs a ``tests`` column, and ``language`` when it mixes languages)::

    from rusty_hf.rewards import get_reward_funcs
    trainer = GRPOTrainer(..., reward_funcs=get_reward_funcs(["execution"]))
"""

from __future__ import annotations

import ast
import functools
import json
import logging
import os
import secrets
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from rusty_hf.rewards.extract import completion_text, extract_code
from rusty_hf.sandbox import Limits, run

logger = logging.getLogger(__name__)

# Isolated mode without site-packages: solutions get the standard library only (all the tasks
# need), and the interpreter starts ~40 ms sooner than with site's .pth files to process.
PYTHON_FLAGS = ("-I", "-S")
HARNESS_FILE = "main.py"
SOLUTION_FILE = "solution.py"
TESTS_FILE = "test_solution.py"
NONCE_FILE = ".nonce"
MAX_CODE_CHARS = 100_000  # longer "solutions" are degenerate generations; don't even parse them

# Runs inside the sandbox as the main program. Kept dependency-free and fast to start
# (unittest is only touched when the test file imported it).
PYTHON_HARNESS = r"""
import json, json.encoder, os, sys


def _main():
    # Bound before the solution is imported: builtins written in C, so a program that patches
    # json or os afterwards cannot forge the report (the report is formatted by hand below).
    quote, write = json.encoder.encode_basestring_ascii, os.write
    with open(".nonce") as f:
        nonce = f.read().strip()
    os.remove(".nonce")
    report_fd = os.dup(1)
    sink = os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 1)
    sys.path.insert(0, os.getcwd())
    failures = []
    passed = total = 0

    def describe(exc):
        try:
            return f"{type(exc).__name__}: {exc}"
        except BaseException:  # an exception whose __str__ raises still counts as a failure
            return "unprintable exception"

    def record(name, error):
        nonlocal passed, total
        total += 1
        if error is None:
            passed += 1
        elif len(failures) < 5:
            failures.append(f"{name}: {error}"[:300])

    try:
        import test_solution as module
    except BaseException as exc:
        module = None
        failures.append(f"import: {describe(exc)}"[:300])
    if module is not None:
        for name, obj in list(vars(module).items()):
            if name.startswith("test") and callable(obj) and not isinstance(obj, type):
                try:
                    obj()
                    record(name, None)
                except BaseException as exc:
                    record(name, describe(exc))
        unittest = sys.modules.get("unittest")
        if unittest is not None:
            loader = unittest.TestLoader()
            for obj in list(vars(module).values()):
                if isinstance(obj, type) and issubclass(obj, unittest.TestCase):
                    for case in loader.loadTestsFromTestCase(obj):
                        result = unittest.TestResult()
                        try:
                            case.run(result)
                            problems = result.failures + result.errors
                            record(case.id(), problems[0][1].strip().splitlines()[-1] if problems else None)
                        except BaseException as exc:
                            record(case.id(), describe(exc))
    listed = ", ".join([quote(str.__str__(f)) for f in failures])
    line = '{"passed": %d, "total": %d, "failures": [%s]}' % (passed, total, listed)
    write(report_fd, f"\n{nonce} {line}\n".encode())


_main()
"""


@dataclass(frozen=True)
class ExecutionOutcome:
    """What one sandboxed test run reports: counts, or why there are none."""

    passed: int
    total: int
    timed_out: bool
    crashed: bool  # ended without a result line: os._exit, a signal, a memory or output limit
    failures: tuple[str, ...] = ()
    duration_s: float = 0.0

    @property
    def fraction(self) -> float:
        return self.passed / self.total if self.total and not (self.timed_out or self.crashed) else 0.0

    @property
    def status(self) -> str:
        """timeout, crash, no_tests_ran (the test file could not import the solution) or ok."""
        return "timeout" if self.timed_out else "crash" if self.crashed else "ok" if self.total else "no_tests_ran"


def parse_harness_output(stdout: str, nonce: str) -> dict | None:
    """Return the harness report carried on the line that starts with ``nonce``, or None."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(nonce + " "):
            try:
                report = json.loads(line[len(nonce) + 1 :])
            except ValueError:
                return None
            counts = [report.get(k) for k in ("passed", "total")] if isinstance(report, dict) else []
            if all(type(c) is int for c in counts) and len(counts) == 2 and 0 <= counts[0] <= counts[1]:
                return report
    return None


def harness_files(code: str, tests: str) -> tuple[dict[str, str], str]:
    """Return the work-dir files of one run (harness, solution, tests, nonce) and the nonce.

    Run them with ``[sys.executable, *PYTHON_FLAGS, HARNESS_FILE]`` in that directory.
    """
    nonce = secrets.token_hex(16)
    return {HARNESS_FILE: PYTHON_HARNESS, SOLUTION_FILE: code, TESTS_FILE: tests, NONCE_FILE: nonce}, nonce


def run_python_tests(code: str, tests: str, *, timeout: float = 10.0, limits: Limits | None = None) -> ExecutionOutcome:
    """Run ``tests`` against ``code`` (saved as ``solution.py``) in the sandbox and count passes."""
    files, nonce = harness_files(code, tests)
    argv = [sys.executable, *PYTHON_FLAGS, HARNESS_FILE]
    result = run(argv, files=files, timeout=timeout, limits=limits)
    if result.timed_out:
        return ExecutionOutcome(0, 0, timed_out=True, crashed=False, duration_s=result.duration_s)
    report = parse_harness_output(result.stdout, nonce)
    if report is None:
        tail = (result.stderr or "").strip().splitlines()[-1:] or [f"exit code {result.returncode}"]
        return ExecutionOutcome(0, 0, False, crashed=True, failures=(tail[0][:300],), duration_s=result.duration_s)
    return ExecutionOutcome(
        passed=report["passed"],
        total=report["total"],
        timed_out=False,
        crashed=False,
        failures=tuple(report.get("failures", ())),
        duration_s=result.duration_s,
    )


def _defines_something(code: str) -> bool:
    """True when ``code`` parses and defines at least one function or class at top level.

    Requiring a definition keeps a one-word answer ("Sure") from collecting the parse credit.
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


@dataclass
class _Sample:
    reward: float | None
    # ok | no_code | syntax_error | timeout | crash | no_tests_ran (the tests could not import the
    # solution) | skipped (another language) | error (internal, reward None)
    status: str
    parsed: bool = False
    fraction: float = 0.0


def _score(completion, tests, language, *, parse_weight, pass_weight, timeout, limits) -> _Sample:
    if language not in (None, "python"):
        return _Sample(None, "skipped")  # other languages have their own rewards
    if not isinstance(tests, str) or not tests.strip():
        raise ValueError(f"the tests for this sample are {type(tests).__name__} {tests!r:.40}, not test code")
    code = extract_code(completion_text(completion), "python")
    if code is None or not code.strip():
        return _Sample(0.0, "no_code")
    if len(code) > MAX_CODE_CHARS or not _defines_something(code):
        return _Sample(0.0, "syntax_error")
    outcome = run_python_tests(code, tests, timeout=timeout, limits=limits)
    return _Sample(parse_weight + pass_weight * outcome.fraction, outcome.status, True, outcome.fraction)


def _safe_score(*args, **kwargs) -> _Sample:
    try:
        return _score(*args, **kwargs)
    except Exception as exc:  # a broken sample must not stop the training run
        logger.warning("execution_reward: sample skipped (reward None): %s: %s", type(exc).__name__, exc)
        return _Sample(None, "error")


def _log_metrics(samples: list[_Sample], log_metric: Callable | None, log_extra: Callable | None) -> None:
    scored = [s for s in samples if s.status not in ("skipped", "error")]
    if callable(log_metric) and scored:
        n = len(scored)
        log_metric("execution/parse_rate", sum(s.parsed for s in scored) / n)
        log_metric("execution/pass_rate", sum(s.fraction for s in scored) / n)
        log_metric("execution/timeout_rate", sum(s.status == "timeout" for s in scored) / n)
        log_metric("execution/crash_rate", sum(s.status == "crash" for s in scored) / n)
    python_rows = [s for s in samples if s.status != "skipped"]
    if callable(log_metric) and python_rows:
        log_metric("execution/error_rate", sum(s.status == "error" for s in python_rows) / len(python_rows))
    if callable(log_extra):
        log_extra("execution_status", [s.status for s in samples])


def _dedupe(rows: list[tuple]) -> tuple[list[int], list[int]]:
    """Map rows to slots so identical rows share one; return (slot of each row, first row of each slot).

    GRPO repeats every prompt ``num_generations`` times, and a tiny model often repeats itself.
    """
    first: dict[str, int] = {}
    slots = []
    for i, row in enumerate(rows):
        try:
            key = json.dumps(row, sort_keys=True, default=repr)
        except (TypeError, ValueError):  # unserialisable (e.g. circular): never shared
            key = f"#unique-{i}"
        slots.append(first.setdefault(key, len(first)))
    todo = [slots.index(slot) for slot in range(len(first))]
    return slots, todo


def default_workers() -> int:
    """The number of cores this process may use (a sandbox run is one busy core)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def get_execution_reward(
    parse_weight: float = 0.3,
    pass_weight: float = 0.7,
    timeout: float = 5.0,
    max_workers: int | None = None,
    limits: Limits | None = None,
) -> Callable[..., list[float | None]]:
    """Build an execution reward with its own weights, per-run timeout and parallelism.

    Args:
        parse_weight: credit for code that parses and defines a function or class.
        pass_weight: credit multiplied by the fraction of tests passed.
        timeout: wall-clock seconds per sandboxed test run.
        max_workers: sandbox runs in flight at once; defaults to the usable cores.
        limits: sandbox resource limits; None takes the sandbox defaults.

    Returns:
        A TRL reward function named ``execution_reward``.
    """
    if parse_weight < 0 or pass_weight < 0:
        raise ValueError(f"weights must be >= 0, got parse_weight={parse_weight}, pass_weight={pass_weight}")
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, got {timeout}")
    score = functools.partial(
        _safe_score, parse_weight=parse_weight, pass_weight=pass_weight, timeout=timeout, limits=limits
    )

    def execution_reward(completions: Sequence, tests: Sequence[str] | None = None, **kwargs) -> list[float | None]:
        """Score Python completions by running the task's tests in the sandbox.

        Args:
            completions: one per sample, a string or a conversational list of messages.
            tests: the ``tests`` dataset column, the test code of each sample's task.
            **kwargs: other dataset columns (``language``: rows other than "python" get None)
                and TRL's extras (``log_metric`` and ``log_extra`` are used when present).

        Returns:
            One reward per completion in [0, parse_weight + pass_weight], or None for a sample
            that could not be scored (another language, or an internal error, which is logged).

        Raises:
            ValueError: when the ``tests`` column is missing or the columns differ in length -- a
                set-up error, so it stops the run at its first step instead of scoring nothing.

        Example:
            >>> tests = "from solution import add\\ndef test_add():\\n    assert add(2, 2) == 4\\n"
            >>> execution_reward(["```python\\ndef add(a, b):\\n    return a + b\\n```"], [tests])
            [1.0]
            >>> execution_reward(["I would rather not."], [tests])
            [0.0]
        """
        if tests is None:
            raise ValueError("execution_reward needs a 'tests' dataset column (load tasks with rusty_hf.data.tasks)")
        if len(tests) != len(completions):
            raise ValueError(f"got {len(completions)} completions but {len(tests)} tests")
        languages = kwargs.get("language") or [None] * len(completions)
        if len(languages) != len(completions):
            raise ValueError(f"got {len(completions)} completions but {len(languages)} languages")
        slots, todo = _dedupe(list(zip(completions, tests, languages)))
        workers = max(1, min(max_workers or default_workers(), len(todo)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="execution_reward") as pool:
            results = list(pool.map(lambda i: score(completions[i], tests[i], languages[i]), todo))
        samples = [results[slot] for slot in slots]
        _log_metrics(samples, kwargs.get("log_metric"), kwargs.get("log_extra"))
        return [s.reward for s in samples]

    return execution_reward


execution_reward = get_execution_reward()
