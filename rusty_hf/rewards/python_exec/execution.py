"""The Python execution reward: the task's tests, run here, against the completion's code, run in the sandbox.

Score per completion (weights configurable through :func:`get_execution_reward`)::

    parse_weight  if the extracted code parses and defines a function or class
  + pass_weight x (tests passed / tests)   -- 0 for this part on a timeout or a broken run

Where the verdict is decided. The candidate's code runs in a fresh :mod:`rusty_hf.sandbox` work dir
holding only ``solution.py``, a small server and its codec (``sandboxed/``: ``candidate_server.py``, ``wire.py``);
the task's tests (``tasks/python/<name>/tests.py``, ordinary ``pytest``-style Python importing from
``solution``) run in *this* process (``host_tests.py``), where their ``solution`` is a proxy
(``remote.py``): each call, attribute read or operator on the candidate's objects is one request
over the sandbox's stdin/stdout, answered with plain values (builtin ints, strings, lists... of a
strict tagged JSON) or with handles for everything else. The expected values, the asserts and the
comparisons stay here; the test file never reaches the sandbox, nor does any secret.

Why this shape (from a survey of the 160 tasks' tests): ~90% compare a returned value with ``==`` or
``is``, but the rest need generators (``next``, ``islice``, infinite inputs such as
``itertools.count()``), nine classes driven by method-call sequences and operators (``+``, ``@``,
``==``, ``hash``, ``abs``, ``repr``, classmethods), a custom exception class, checks that inputs were
not modified, and property checks written in the test (a Hanoi move list replayed, a topological
order checked edge by edge). A declarative table of expected values would lose the last kind and
freeze the rest; proxies keep every test file as it was, runnable by plain pytest next to a real
``solution.py`` (what ``CodingEnv`` does), and put no expected value anywhere the candidate can read.

Threat model: the candidate runs in the same process as the server, so it may read or rewrite
anything the server knows or does (there is nothing secret there), write to any descriptor, answer
requests itself, exit, swallow exceptions, patch builtins/json/os, sleep, exhaust memory or
descriptors, fork. What it gets from that is only the power to answer the host's requests, so
passing a test still means producing the right values: a proxy never equals plain data (an object
whose ``__eq__`` is always true is not ``== 2.5``), each request carries fresh random bits its
answer must echo (answers written ahead, duplicated or malformed end the run), and any break in the
conversation (EOF, garbage, an over-long answer, the deadline) ends it with no test credit, whatever
a test's ``except`` did. The tests were written so that no test passes on a constant or a blanket
``raise`` alone (``tests/test_tasks.py`` checks). The sandbox contains the rest (filesystem: the
tests are not there; pid namespace: the host's memory and /proc are not visible; limits).

Speed: one interpreter start per completion, as before (the server arrives compiled), plus one
round trip per call (~60 us on the 2-core VMs); iteration fetches items in batches. A batch of
completions is spread over a thread pool. ``benchmarks/execution_vs_baseline.py`` compares the
ms per sample with the in-sandbox harness this replaced.

Usage with TRL (the dataset needs a ``tests`` column, and ``language`` when it mixes languages)::

    from rusty_hf.rewards import get_reward_funcs
    trainer = GRPOTrainer(..., reward_funcs=get_reward_funcs(["execution"]))
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import logging
import marshal
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from rusty_hf.rewards.extract import completion_text, extract_code
from rusty_hf.rewards.python_exec.collect import collection_error, report_broken
from rusty_hf.rewards.python_exec.host_tests import TESTS_FILE, TestReport, run_tests  # noqa: F401 (TESTS_FILE: for CodingEnv)
from rusty_hf.rewards.python_exec.remote import Remote
from rusty_hf.sandbox import IsolationMissing, Limits, SandboxResult, run
from rusty_hf.sandbox.channel import Channel

logger = logging.getLogger(__name__)

# No site-packages: solutions get the standard library only (all the tasks need), and the interpreter
# starts ~40 ms sooner than with site's .pth files to process. Not -I: the work dir must stay on sys.path.
PYTHON_FLAGS = ("-B", "-E", "-s", "-S")
SERVER_MODULES = ("candidate_server", "wire")
SERVER_ARGV = (sys.executable, *PYTHON_FLAGS, "-c", "import candidate_server; candidate_server.main()")
SOLUTION_FILE = "solution.py"
MAX_CODE_CHARS = 100_000  # longer "solutions" are degenerate generations; don't even parse them


@functools.cache
def sandbox_files() -> dict[str, bytes]:
    """The files every run's work dir starts with, besides ``solution.py``: the server and its codec,
    compiled here once (``<module>.pyc``, imported without a source), so no run spends its start compiling them."""
    here = Path(__file__).resolve().parent / "sandboxed"  # the files that run there, and only those
    return {f"{name}.pyc": _unchecked_pyc(here / f"{name}.py") for name in SERVER_MODULES}


def _unchecked_pyc(path: Path) -> bytes:
    """``path`` compiled to a .pyc in PEP 552's unchecked hash-based form (flags 0b01: never compared
    with a source), for this interpreter, which is the one the sandbox runs."""
    source = path.read_bytes()
    code = compile(source, path.name, "exec", dont_inherit=True)
    return importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(source) + marshal.dumps(code)


@dataclass(frozen=True)
class ExecutionOutcome:
    """What one sandboxed test run reports: counts, or why there are none."""

    passed: int
    total: int
    timed_out: bool
    crashed: bool  # the conversation broke: exit, a signal, a limit, a forged or malformed answer
    failures: tuple[str, ...] = ()
    duration_s: float = 0.0

    @property
    def fraction(self) -> float:
        return self.passed / self.total if self.total and not (self.timed_out or self.crashed) else 0.0

    @property
    def status(self) -> str:
        """timeout, crash, no_tests_ran (the test file could not import the solution) or ok."""
        return "timeout" if self.timed_out else "crash" if self.crashed else "ok" if self.total else "no_tests_ran"


def _outcome(report: TestReport | None, remote: Remote | None, result: SandboxResult) -> ExecutionOutcome:
    """One run's counts, or why there are none: the conversation's verdict first, then the sandbox's."""
    if result.timed_out or (remote is not None and remote.timed_out):
        return ExecutionOutcome(0, 0, timed_out=True, crashed=False, duration_s=result.duration_s)
    if report is None or report.broken is not None:
        stderr_tail = (result.stderr or "").strip().splitlines()[-1:]
        why = [report.broken if report is not None else "the sandbox session failed", *stderr_tail]
        return ExecutionOutcome(0, 0, False, crashed=True, failures=tuple(w[:300] for w in why),
                                duration_s=result.duration_s)  # fmt: skip
    return ExecutionOutcome(
        passed=report.passed,
        total=report.total,
        timed_out=False,
        crashed=False,
        failures=tuple(report.failures),
        duration_s=result.duration_s,
    )


def run_python_tests(code: str, tests: str, *, timeout: float = 10.0, limits: Limits | None = None) -> ExecutionOutcome:
    """Run ``tests`` here against ``code``, which runs in the sandbox as ``solution.py``, and count passes."""
    conversation: dict[str, object] = {}

    def session(channel: Channel) -> TestReport:
        remote = conversation["remote"] = Remote(channel)
        return run_tests(tests, remote)

    files = {**sandbox_files(), SOLUTION_FILE: code}
    result = run(list(SERVER_ARGV), files=files, timeout=timeout, limits=limits, session=session)
    return _outcome(result.session_result, conversation.get("remote"), result)


def parse_untrusted(code: str) -> ast.Module | None:
    """``code`` parsed on the host (never run), or None when it does not parse. The parser's own warnings
    (``SyntaxWarning: invalid escape sequence``) are a model's text: they stay out of the training log."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _defines_something(code: str) -> bool:
    """True when ``code`` parses and defines at least one function or class at top level.

    Requiring a definition keeps a one-word answer ("Sure") from collecting the parse credit.
    """
    tree = parse_untrusted(code)
    if tree is None:
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


@dataclass
class _Sample:
    reward: float | None
    # ok | no_code | syntax_error | timeout | crash | no_tests_ran (the tests could not import the
    # solution) | skipped (another language) | tests_broken (the test file cannot be collected, whatever
    # the solution: reward None) | error (internal, reward None)
    status: str
    parsed: bool = False
    fraction: float = 0.0


def _score(completion, tests, language, task=None, *, parse_weight, pass_weight, timeout, limits) -> _Sample:
    if language not in (None, "python"):
        return _Sample(None, "skipped")  # other languages have their own rewards
    if not isinstance(tests, str) or not tests.strip():
        raise ValueError(f"the tests for this sample are {type(tests).__name__} {tests!r:.40}, not test code")
    if (problem := collection_error(tests)) is not None:  # the file's fault, not the sample's: never parse credit
        report_broken(tests, task, problem)
        return _Sample(None, "tests_broken")
    code = extract_code(completion_text(completion), "python")
    if code is None or not code.strip():
        return _Sample(0.0, "no_code")
    if len(code) > MAX_CODE_CHARS or not _defines_something(code):
        return _Sample(0.0, "syntax_error")
    outcome = run_python_tests(code, tests, timeout=timeout, limits=limits)
    return _Sample(parse_weight + pass_weight * outcome.fraction, outcome.status, True, outcome.fraction)


_REFUSALS_SAID: set[str] = set()


def _safe_score(*args, **kwargs) -> _Sample:
    try:
        return _score(*args, **kwargs)
    except IsolationMissing as exc:  # no bubblewrap here: every sample is refused; say so once, not per sample
        if str(exc) not in _REFUSALS_SAID:
            _REFUSALS_SAID.add(str(exc))
            logger.error("execution_reward: every sample gets reward None: %s", exc)
        return _Sample(None, "error")
    except Exception as exc:  # a broken sample must not stop the training run
        logger.warning("execution_reward: sample skipped (reward None): %s: %s", type(exc).__name__, exc)
        return _Sample(None, "error")


def _log_metrics(samples: list[_Sample], log_metric: Callable | None, log_extra: Callable | None) -> None:
    scored = [s for s in samples if s.status not in ("skipped", "error", "tests_broken")]
    if callable(log_metric) and scored:
        n = len(scored)
        log_metric("execution/parse_rate", sum(s.parsed for s in scored) / n)
        log_metric("execution/pass_rate", sum(s.fraction for s in scored) / n)
        log_metric("execution/timeout_rate", sum(s.status == "timeout" for s in scored) / n)
        log_metric("execution/crash_rate", sum(s.status == "crash" for s in scored) / n)
    python_rows = [s for s in samples if s.status != "skipped"]
    if callable(log_metric) and python_rows:
        log_metric("execution/error_rate", sum(s.status == "error" for s in python_rows) / len(python_rows))
        log_metric("execution/tests_broken_rate", sum(s.status == "tests_broken" for s in python_rows) / len(python_rows))
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
            **kwargs: other dataset columns (``language``: rows other than "python" get None;
                ``name`` names a task in the log) and TRL's extras (``log_metric`` and
                ``log_extra`` are used when present).

        Returns:
            One reward per completion in [0, parse_weight + pass_weight], or None for a sample
            that could not be scored (another language, a test file that cannot be collected --
            logged once per file -- or an internal error, which is logged).

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
        names = kwargs.get("name") or ()  # only to name a broken test file in the log
        names = list(names) if len(names) == len(completions) else [None] * len(completions)
        slots, todo = _dedupe(list(zip(completions, tests, languages)))
        workers = max(1, min(max_workers or default_workers(), len(todo)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="execution_reward") as pool:
            results = list(pool.map(lambda i: score(completions[i], tests[i], languages[i], names[i]), todo))
        samples = [results[slot] for slot in slots]
        _log_metrics(samples, kwargs.get("log_metric"), kwargs.get("log_extra"))
        return [s.reward for s in samples]

    return execution_reward


execution_reward = get_execution_reward()
