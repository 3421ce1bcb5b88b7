"""Compile Rust with the real ``rustc`` inside :mod:`rusty_hf.sandbox` and count what it reports.

:func:`compile_rust` runs, in one sandboxed shell so the isolation is paid once:

1. a check-only pass (``--emit=metadata``: type and borrow checking, no code generation) with
   ``--error-format=json``, through ``clippy-driver`` when the toolchain has it so clippy's lints
   are counted in the same pass. ``--cap-lints warn`` keeps a ``#![deny(...)]`` from turning a
   lint into a failed build, and ``--force-warn`` on the main lint groups keeps an
   ``#![allow(warnings)]`` from hiding them;
2. only when the task has tests and the check passed: ``rustc --test`` on the code with the tests
   appended (a ``#[cfg(test)] mod tests``, see ``tasks/README.md``), then the test binary, whose
   last ``test result: ... N passed; M failed`` line is read back.

Both the compiler and the tests run in the sandbox: the toolchain's sysroot is the only host
directory bound in (read-only), so ``include_str!("/etc/passwd")`` finds no file at compile time.
What is NOT stopped: a test binary that prints a forged ``test result`` line -- the count of
``#[test]`` functions in the task's tests caps the total, but hostile code is contained by the
sandbox, not by this parser.

    from rusty_hf.rewards.rust_compile import compile_rust
    result = compile_rust("pub fn add(a: i32, b: i32) -> i32 { a + b }")
    result.success, result.n_errors, result.n_warnings, result.diagnostics
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rusty_hf.rewards.rust_toolchain import RustToolchain, RustToolchainError, find_toolchain
from rusty_hf.sandbox import Limits, run

EDITION = "2021"
MAX_CODE_CHARS = 100_000  # longer "programs" are degenerate generations: not worth a compiler run
# rustc reserves far more address space than it touches; 1 GB of RLIMIT_AS is not enough to link.
DEFAULT_LIMITS = Limits(cpu_s=30, memory_mb=4096)
FORCED_LINTS = ("unused", "nonstandard_style")
_MARK = "@@rusty-phase:"  # written to stderr by the script, never by untrusted code (see _SCRIPT)
_TEST_RESULT = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed", re.MULTILINE)
_TEST_ATTR = re.compile(r"#\s*\[\s*test\s*\]")
_SUMMARY = re.compile(r"^(aborting due to|\d+ warnings? emitted|.*generated \d+ warnings?)")
_HAS_MAIN = re.compile(r"^\s*(pub\s+)?fn\s+main\s*\(", re.MULTILINE)

# $1 check compiler, $2 rustc, $3 crate type, $4 "1" when there are tests, $5 the target's libdir
# (the test binary links libstd dynamically, -C prefer-dynamic: a quarter faster to link); the
# lint flags follow.
# The test binary's stderr is discarded, so the phase markers and the JSON diagnostics on stderr
# come from the compilers alone (compile-time code -- const eval -- cannot write to stderr).
_SCRIPT = f"""
check="$1"; rustc="$2"; crate="$3"; tests="$4"; libdir="$5"; shift 5
"$check" --edition {EDITION} --crate-type "$crate" --crate-name solution --emit=metadata \
  --error-format=json --cap-lints warn "$@" -o solution.rmeta solution.rs || exit 1
[ "$tests" = 1 ] || exit 0
echo "{_MARK}test-build" >&2
"$rustc" --edition {EDITION} --test --crate-name solution --error-format=json --cap-lints allow \
  -C debuginfo=0 -C prefer-dynamic -o tests_bin with_tests.rs || exit 1
echo "{_MARK}test-run" >&2
LD_LIBRARY_PATH="$libdir" exec ./tests_bin 2>/dev/null
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
    tests_total: int = 0
    timed_out: bool = False
    duration_s: float = 0.0

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
        if self.has_tests and not self.tests_total:
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


def count_tests(tests: str) -> int:
    """The number of ``#[test]`` functions in a task's tests: the most a run may report."""
    return len(_TEST_ATTR.findall(tests))


def _read_tests(stdout: str, expected: int) -> tuple[int, int]:
    """(passed, total) from the last ``test result`` line, capped by the tests the task defines."""
    matches = _TEST_RESULT.findall(stdout)
    if not matches:
        return 0, 0
    passed, failed = (int(n) for n in matches[-1])
    total = max(passed + failed, expected)
    return min(passed, expected or passed), total


def _argv(toolchain: RustToolchain, code: str, has_tests: bool, clippy: bool) -> list[str]:
    check = toolchain.clippy_driver if clippy and toolchain.clippy_driver else toolchain.rustc
    lints = [*FORCED_LINTS, *(["clippy::all"] if check == toolchain.clippy_driver else [])]
    crate = "bin" if _HAS_MAIN.search(code) else "lib"  # a lib would flag its unused `main`
    forced = [arg for lint in lints for arg in ("--force-warn", lint)]
    script_args = [check, toolchain.rustc, crate, "1" if has_tests else "0", toolchain.target_libdir]
    return ["/bin/sh", "-c", _SCRIPT, "sh", *script_args, *forced]


def compile_rust(
    code: str,
    *,
    tests: str | None = None,
    toolchain: RustToolchain | None = None,
    clippy: bool = True,
    timeout: float = 60.0,
    limits: Limits | None = None,
) -> CompileResult:
    """Check ``code`` with rustc (and clippy), then build and run ``tests`` against it when given.

    Args:
        code: a Rust source file (a library; a top-level ``fn main`` makes it a binary).
        tests: a ``#[cfg(test)] mod tests { ... }`` block appended to ``code`` for ``rustc --test``;
            None or blank skips the build and the test run.
        toolchain: from :func:`find_toolchain`; None looks it up (cached).
        clippy: count clippy's lints too when ``clippy-driver`` is installed.
        timeout: wall-clock seconds for the whole sandboxed run (compiles and tests).
        limits: sandbox limits; None takes ``DEFAULT_LIMITS``.

    Returns:
        A :class:`CompileResult`; what the code does is reported, never raised.

    Raises:
        RustToolchainError: no rustc on this machine (the message names the fix).
        TypeError: ``code`` is not a string.
    """
    if not isinstance(code, str):
        raise TypeError(f"code must be a str of Rust source, got {type(code).__name__}")
    toolchain = toolchain or find_toolchain()
    has_tests = isinstance(tests, str) and bool(tests.strip())
    if len(code) > MAX_CODE_CHARS:
        too_long = Diagnostic("error", f"source longer than {MAX_CODE_CHARS} characters: not compiled", None, None)
        return CompileResult(False, 1, 0, (too_long,), has_tests=has_tests)
    files = {"solution.rs": code}
    if has_tests:
        files["with_tests.rs"] = f"{code}\n\n{tests}"
    result = run(
        _argv(toolchain, code, has_tests, clippy),
        files=files,
        timeout=timeout,
        limits=limits or DEFAULT_LIMITS,
        ro_paths=[toolchain.sysroot],
    )
    if result.returncode == 127 and not result.stderr.lstrip().startswith(("{", _MARK)):
        raise RustToolchainError(f"the sandbox could not run {toolchain.rustc}: {result.stderr.strip()[-300:]}")
    check_err, _, rest = result.stderr.partition(f"{_MARK}test-build")
    build_err, ran_tests, _ = rest.partition(f"{_MARK}test-run")
    check, build = parse_diagnostics(check_err), parse_diagnostics(build_err)
    n_check_errors = sum(d.level == "error" for d in check)
    success = bool(_MARK in result.stderr or (result.returncode == 0 and not n_check_errors))
    warnings = [d for d in check if d.level == "warning"]
    passed, total = _read_tests(result.stdout, count_tests(tests)) if ran_tests else (0, 0)
    return CompileResult(
        success=success,
        n_errors=n_check_errors + sum(d.level == "error" for d in build) + (0 if success or n_check_errors else 1),
        n_warnings=len(warnings),
        diagnostics=tuple(check + build),
        n_clippy=sum(d.is_clippy for d in warnings),
        clippy=clippy and toolchain.clippy_driver is not None,
        has_tests=has_tests,
        tests_compiled=bool(ran_tests),
        tests_passed=passed,
        tests_total=total,
        timed_out=result.timed_out,
        duration_s=result.duration_s,
    )


__all__ = ["CompileResult", "Diagnostic", "RustToolchainError", "compile_rust", "count_tests", "parse_diagnostics"]
