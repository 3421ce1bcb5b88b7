"""Compile Rust with the real ``rustc`` inside :mod:`rusty_hf.sandbox`, run a task's tests, count what it reports.

:func:`compile_rust` runs, in one sandboxed shell so the isolation is paid once:

1. a check-only pass (``--emit=metadata``: type and borrow checking, no code generation) with
   ``--error-format=json``, through ``clippy-driver`` when the toolchain has it so clippy's lints
   are counted in the same pass. ``--force-warn`` on the main lint groups keeps an
   ``#![allow(warnings)]`` from hiding them (and a ``#![deny(...)]`` of theirs from failing the
   build); rustc's other deny-by-default lints are errors, as under cargo, and
   ``long_running_const_eval`` is forbidden, so a const-eval loop fails in about a second;
2. only when the task has tests and the check passed: ``rustc --test`` on the program with the
   harness and the tests appended (:mod:`rusty_hf.rewards.rust.harness`), then each test in a
   process of its own. Which tests passed is decided here, by comparing what each test recorded
   with what it recorded for the task's reference solution (run the same way, cached, and refused
   when a stub of it that computes nothing passes a test: ``stub.py``); no line the program
   prints, and no exit code, is taken for a verdict.

Both the compiler and the tests run in the sandbox: the toolchain's sysroot is the only host
directory bound in (read-only), so ``include_str!("/etc/passwd")`` finds no file at compile time,
and the tests' source is gone before any compiler starts (``harness.py`` has the threat model).

    from rusty_hf.rewards.rust.compiler import compile_rust
    result = compile_rust("pub fn add(a: i32, b: i32) -> i32 { a + b }")
    result.success, result.n_errors, result.n_warnings, result.diagnostics
    result = compile_rust(code, tests=task["tests"], reference=task["solution"])
    result.tests_passed, result.tests_total, result.test_fraction
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rusty_hf.rewards.rust import harness
from rusty_hf.rewards.rust.cache import cache_key
from rusty_hf.rewards.rust.harness import Frame, ReferenceCache, TaskReferenceError
from rusty_hf.rewards.rust.stub import STUB_PRELUDE, refuse_tests_a_stub_passes
from rusty_hf.rewards.rust.toolchain import RustToolchain, RustToolchainError, find_toolchain
from rusty_hf.sandbox import Limits, SandboxResult, run

EDITION = "2021"
MAX_CODE_CHARS = 100_000  # longer "programs" are degenerate generations: not worth a compiler run
# rustc reserves far more address space than it touches; 1 GB of RLIMIT_AS is not enough to link.
DEFAULT_LIMITS = Limits(cpu_s=30, memory_mb=4096)
DEFAULT_TEST_TIMEOUT = 2.0  # wall seconds per test process; the tasks' tests take milliseconds
TEST_OUTPUT_BYTES = 65536  # per test process: a flood loses its own test, not the run
FORCED_LINTS = ("unused", "nonstandard_style")
_KILLED = (124, 137)  # `timeout`'s exit codes: the time limit (or SIGKILL) ended the test
_MARK = "@@rusty-phase:"  # written to stderr by the script before any program code runs (see _SCRIPT)
_SUMMARY = re.compile(r"^(aborting due to|\d+ warnings? emitted|.*generated \d+ warnings?)")
_HAS_MAIN = re.compile(r"^\s*(pub\s+)?fn\s+main\s*\(", re.MULTILINE)

# $1 check compiler, $2 rustc, $3 crate type, $4 mode, $5 the target's libdir (the test binary links
# libstd dynamically, -C prefer-dynamic: a quarter faster to link), $6 seconds per test; then the
# lint flags, "--" and, in mode "tests", the names of the tests to run. Modes: check (no tests);
# tests (a program); reference (the task's reference solution: no check, the tests also build as
# written -- plain.rs, std's asserts -- and must pass, and the test binary lists its own tests, each
# run REFERENCE_ROUNDS times). with_tests.rs goes into the shell's memory and is deleted before the
# first compiler starts; rustc reads it from a pipe. Each test's stderr carries what it records
# (harness.PRELUDE) to stdout between the shell's begin and end lines; its stdout goes nowhere.
# RUST_BACKTRACE=0: with it unset, std's panic hook spends ~70 ms more on each failing test (measured).
# The phase markers and JSON diagnostics on stderr come before any program code runs (const eval
# cannot write).
_SCRIPT = f"""
check="$1"; rustc="$2"; crate="$3"; mode="$4"; libdir="$5"; seconds="$6"; shift 6
lints=""; while [ "$1" != -- ]; do lints="$lints $1"; shift; done; shift
if [ "$mode" != check ]; then src=$(cat with_tests.rs) && rm -f with_tests.rs || exit 1; fi
if [ "$mode" != reference ]; then
  "$check" --edition {EDITION} --crate-type "$crate" --crate-name solution --emit=metadata \
    --error-format=json -F long_running_const_eval $lints -o solution.rmeta solution.rs || exit 1
fi
[ "$mode" = check ] && exit 0
echo "{_MARK}test-build" >&2
build() {{ "$rustc" --edition {EDITION} --test --crate-name solution --error-format=json -A warnings \
  -F long_running_const_eval -C debuginfo=0 -C prefer-dynamic "$@"; }}
printf '%s\\n' "$src" | build -o tests_bin - || exit 1
src=""
if [ "$mode" = reference ]; then build -o plain_bin plain.rs || exit 1; fi
echo "{_MARK}test-run" >&2
export LD_LIBRARY_PATH="$libdir" RUST_BACKTRACE=0
rounds=1
if [ "$mode" = reference ]; then
  ./plain_bin -q --test-threads=1 >/dev/null 2>&1; echo "{harness.PLAIN}$?"
  rounds="$(seq {harness.REFERENCE_ROUNDS})"; set -- $(./tests_bin --list --format terse | sed -n 's/: test$//p')
fi
limit=""; if command -v timeout >/dev/null 2>&1; then limit="timeout -s KILL $seconds"; fi
for name in "$@"; do
  for round in $rounds; do
    {{ echo "{harness.BEGIN}$name"; $limit ./tests_bin --exact "$name" --test-threads=1 2>&1 >/dev/null
      echo "{harness.END}$name $?"; }} | head -c {TEST_OUTPUT_BYTES}
  done
done
"""


@dataclass(frozen=True)
class Diagnostic:
    """One rustc or clippy message: its level, lint or error code, first line and rendered text."""

    level: str  # "error" or "warning"
    message: str
    code: str | None  # "E0425", "unused_variables", "clippy::needless_range_loop", ...
    line: int | None
    rendered: str = ""

    @property
    def is_clippy(self) -> bool:
        return bool(self.code) and self.code.startswith("clippy::")


@dataclass(frozen=True)
class CompileResult:
    """What compiling (and, with tests, testing) one program gave."""

    success: bool  # the code compiles on its own (the check pass)
    n_errors: int  # errors of the check pass, plus those of the test build (tests that don't fit the code)
    n_warnings: int  # rustc and clippy warnings of the check pass
    diagnostics: tuple[Diagnostic, ...] = ()
    n_clippy: int = 0  # how many of the warnings are clippy lints
    clippy: bool = False  # whether clippy-driver ran
    has_tests: bool = False
    tests_compiled: bool = False
    tests_passed: int = 0
    tests_total: int = 0  # the tests of the task (those its reference solution ran)
    timed_out: bool = False  # the whole run, or a test killed at its time limit
    duration_s: float = 0.0
    tests_ended: int = 0  # tests whose process ran to its end line (passed or not)
    passed_names: tuple[str, ...] = ()

    @property
    def test_fraction(self) -> float:
        return self.tests_passed / self.tests_total if self.tests_total else 0.0

    @property
    def status(self) -> str:
        """compile_error, tests_compile_error, test_timeout, test_crash, or ok."""
        if not self.success:
            return "compile_error"
        if self.has_tests and not self.tests_compiled:
            return "tests_compile_error"
        if self.has_tests and self.timed_out:
            return "test_timeout"
        if self.has_tests and not self.tests_ended:
            return "test_crash"
        return "ok"


def parse_diagnostics(stderr: str, max_rendered: int = 2000) -> list[Diagnostic]:
    """The errors and warnings in ``rustc --error-format=json`` output (one JSON object a line)."""
    found = []
    for line in stderr.splitlines():
        if not line.startswith("{"):
            continue
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if not isinstance(item, dict) or item.get("$message_type", "diagnostic") != "diagnostic":
            continue
        level, message = str(item.get("level", "")), str(item.get("message", ""))
        if not level.startswith(("error", "warning")) or _SUMMARY.match(message):
            continue
        code = item.get("code") or {}
        spans = [s for s in item.get("spans") or [] if isinstance(s, dict)]
        primary = next((s for s in spans if s.get("is_primary")), spans[0] if spans else {})
        found.append(
            Diagnostic(
                level="error" if level.startswith("error") else "warning",
                message=message,
                code=code.get("code") if isinstance(code, dict) else None,
                line=primary.get("line_start"),
                rendered=str(item.get("rendered") or "")[:max_rendered],
            )
        )
    return found


def _argv(toolchain: RustToolchain, code: str, mode: str, clippy: bool, seconds: float, names: list[str]) -> list[str]:
    check = toolchain.clippy_driver if clippy and toolchain.clippy_driver else toolchain.rustc
    lints = [*FORCED_LINTS, *(["clippy::all"] if check == toolchain.clippy_driver else [])]
    crate = "bin" if _HAS_MAIN.search(code) else "lib"  # a lib would flag its unused `main`
    forced = [arg for lint in lints for arg in ("--force-warn", lint)]
    script_args = [check, toolchain.rustc, crate, mode, toolchain.target_libdir, f"{seconds:g}"]
    return ["/bin/sh", "-c", _SCRIPT, "sh", *script_args, *forced, "--", *names]


def _run(toolchain: RustToolchain, code: str, tests: str | None, mode: str, names: list[str], options: dict):
    files = {"solution.rs": code}
    if tests is not None:
        files["with_tests.rs"] = harness.harness_source(code, tests)
    if mode == "reference":
        files["plain.rs"] = f"{code}\n{tests}\n"
    argv = _argv(toolchain, code, mode, options["clippy"], options["test_timeout"], names)
    result = run(argv, files=files, timeout=options["timeout"], limits=options["limits"], ro_paths=[toolchain.sysroot])
    if result.returncode == 127 and not result.stderr.lstrip().startswith(("{", _MARK)):
        raise RustToolchainError(f"the sandbox could not run {toolchain.rustc}: {result.stderr.strip()[-300:]}")
    return result


def harness_fingerprint(test_timeout: float = DEFAULT_TEST_TIMEOUT) -> str:
    """A digest of everything that decides a test verdict besides code, tests and toolchain: part of
    every cache key of test results, so a changed harness never serves stale scores."""
    return cache_key(harness.PRELUDE, _SCRIPT, test_timeout, STUB_PRELUDE)


def reference_frames(
    reference: str,
    tests: str,
    *,
    toolchain: RustToolchain,
    timeout: float = 60.0,
    limits: Limits | None = None,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    cache: ReferenceCache | None = None,
) -> dict[str, Frame]:
    """What each test records for the task's reference solution (run in the sandbox once per content).

    Raises:
        TaskReferenceError: the reference does not build against its tests, fails one, or a test
            records nothing, not the same twice, or what a stub that computes nothing records too;
            ``permanent=False`` when a run only timed out.
    """
    options = {"clippy": False, "timeout": timeout, "limits": limits or DEFAULT_LIMITS, "test_timeout": test_timeout}

    def compute() -> dict[str, Frame]:
        result = _run(toolchain, reference, tests, "reference", [], options)
        build_err, ran, _ = result.stderr.partition(f"{_MARK}test-run")
        if not ran:
            errors = [d.rendered or d.message for d in parse_diagnostics(build_err) if d.level == "error"]
            why = errors[0][:1500] if errors else (result.stderr.strip()[-500:] or f"exit {result.returncode}")
            raise TaskReferenceError(f"the reference solution does not build with its tests: {why}", permanent=not result.timed_out)
        if result.timed_out:
            raise TaskReferenceError(f"the reference run timed out after {timeout:g} s", permanent=False)
        expected = harness.expected_frames(result.stdout)

        def run_tests(stub: str) -> tuple[bool, SandboxResult]:
            stub_result = _run(toolchain, stub, tests, "tests", list(expected), options)
            return f"{_MARK}test-run" in stub_result.stderr, stub_result

        refuse_tests_a_stub_passes(expected, reference, run_tests)
        return expected

    key = cache_key("rust-reference", reference, tests, toolchain.version, harness_fingerprint(test_timeout))
    return (cache or harness.DEFAULT_REFERENCES).get(key, compute)


def compile_rust(
    code: str,
    *,
    tests: str | None = None,
    reference: str | None = None,
    toolchain: RustToolchain | None = None,
    clippy: bool = True,
    timeout: float = 60.0,
    limits: Limits | None = None,
    test_timeout: float = DEFAULT_TEST_TIMEOUT,
    references: ReferenceCache | None = None,
) -> CompileResult:
    """Check ``code`` with rustc (and clippy), then build and run ``tests`` against it when given.

    Args:
        code: a Rust source file (a library; a top-level ``fn main`` makes it a binary).
        tests: a ``#[cfg(test)] mod tests { ... }`` block whose ``assert_eq!(actual, expected)``s
            record ``actual`` (see ``tasks/README.md``); None or blank skips the build and the tests.
        reference: the task's reference solution, required with ``tests``: a test passes when it
            records for ``code`` exactly what it records for ``reference``.
        toolchain: from :func:`find_toolchain`; None looks it up (cached).
        clippy: count clippy's lints too when ``clippy-driver`` is installed.
        timeout: wall-clock seconds for the whole sandboxed run (compiles and tests).
        limits: sandbox limits; None takes ``DEFAULT_LIMITS``.
        test_timeout: wall-clock seconds for each test's process.
        references: where reference records are cached; None shares a process-wide one.

    Returns:
        A :class:`CompileResult`; what the code does is reported, never raised.

    Raises:
        RustToolchainError: no rustc on this machine (the message names the fix).
        TaskReferenceError: the reference solution gives no usable record (a broken task).
        TypeError: ``code`` is not a string. ValueError: ``tests`` without a ``reference``.
    """
    if not isinstance(code, str):
        raise TypeError(f"code must be a str of Rust source, got {type(code).__name__}")
    has_tests = isinstance(tests, str) and bool(tests.strip())
    if has_tests and not (isinstance(reference, str) and reference.strip()):
        raise ValueError(
            "tests need the task's reference solution (reference=..., the `solution` column of "
            "rusty_hf.data.tasks.load_tasks): the values each test expects come from running it"
        )
    toolchain = toolchain or find_toolchain()
    if len(code) > MAX_CODE_CHARS:
        too_long = Diagnostic("error", f"source longer than {MAX_CODE_CHARS} characters: not compiled", None, None)
        return CompileResult(False, 1, 0, (too_long,), has_tests=has_tests)
    options = {"clippy": clippy, "timeout": timeout, "limits": limits or DEFAULT_LIMITS, "test_timeout": test_timeout}
    expected: dict[str, Frame] = {}
    if has_tests:
        expected = reference_frames(reference, tests, toolchain=toolchain, timeout=timeout, limits=limits,
                                    test_timeout=test_timeout, cache=references)  # fmt: skip
    result = _run(toolchain, code, tests if has_tests else None, "tests" if has_tests else "check", list(expected), options)
    check_err, _, rest = result.stderr.partition(f"{_MARK}test-build")
    build_err, ran_tests, _ = rest.partition(f"{_MARK}test-run")
    check, build = parse_diagnostics(check_err), parse_diagnostics(build_err)
    n_check_errors = sum(d.level == "error" for d in check)
    success = bool(_MARK in result.stderr or (result.returncode == 0 and not n_check_errors))
    warnings = [d for d in check if d.level == "warning"]
    frames = harness.parse_frames(result.stdout) if ran_tests else {}
    ended = [f for name in expected for f in frames.get(name, []) if f.exit_code is not None]
    passed = harness.passed_tests(expected, result.stdout) if ran_tests else ()
    return CompileResult(
        success=success,
        n_errors=n_check_errors + sum(d.level == "error" for d in build) + (0 if success or n_check_errors else 1),
        n_warnings=len(warnings),
        diagnostics=tuple(check + build),
        n_clippy=sum(d.is_clippy for d in warnings),
        clippy=clippy and toolchain.clippy_driver is not None,
        has_tests=has_tests,
        tests_compiled=bool(ran_tests),
        tests_passed=len(passed),
        tests_total=len(expected) if ran_tests else 0,
        timed_out=result.timed_out or any(f.exit_code in _KILLED for f in ended),
        duration_s=result.duration_s,
        tests_ended=len(ended),
        passed_names=passed,
    )


__all__ = [
    "CompileResult",
    "Diagnostic",
    "RustToolchainError",
    "TaskReferenceError",
    "compile_rust",
    "harness_fingerprint",
    "parse_diagnostics",
    "reference_frames",
]
