"""Tests for rusty_hf/rewards/rust/compiler.py: the real rustc (and clippy) in the sandbox."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards.rust.compiler import compile_rust, parse_diagnostics, reference_frames
from rusty_hf.rewards.rust.harness import ReferenceCache
from rusty_hf.rewards.rust.toolchain import RustToolchainError, find_toolchain
from rusty_hf.sandbox import capabilities


@pytest.fixture(scope="module")
def toolchain():
    try:
        return find_toolchain()
    except RustToolchainError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def task() -> dict:
    return load_tasks(language="rust")[0]


def test_valid_code_compiles_without_diagnostics(toolchain):
    result = compile_rust("/// Adds.\npub fn add(a: i32, b: i32) -> i32 { a + b }\n", toolchain=toolchain)
    assert result.success and result.status == "ok"
    assert (result.n_errors, result.n_warnings, result.diagnostics) == (0, 0, ())


def test_type_error_is_reported_as_json_diagnostic(toolchain):
    result = compile_rust('pub fn f() -> i32 { "not a number" }', toolchain=toolchain)
    assert not result.success and result.status == "compile_error"
    assert result.n_errors == 1
    assert result.diagnostics[0].code == "E0308" and result.diagnostics[0].line == 1


def test_include_str_cannot_read_host_files_at_compile_time(toolchain):
    if not capabilities().bwrap:
        pytest.skip("bubblewrap is not available: without it the sandbox does not hide host files")
    assert Path("/etc/passwd").is_file()  # the file exists on the host; only the sandbox hides it
    result = compile_rust('pub const STOLEN: &str = include_str!("/etc/passwd");', toolchain=toolchain)
    assert not result.success
    assert "/etc/passwd" in result.diagnostics[0].message and "root:" not in json.dumps(str(result))


def test_clippy_lints_count_as_warnings(toolchain):
    if toolchain.clippy_driver is None:
        pytest.skip("clippy-driver not installed (rustup component add clippy)")
    code = "pub fn total(v: &[i32]) -> i32 {\n    let mut s = 0;\n    for i in 0..v.len() { s += v[i]; }\n    s\n}\n"
    result = compile_rust(code, toolchain=toolchain)
    assert result.success and result.clippy
    assert result.n_clippy >= 1 and result.n_warnings >= result.n_clippy
    assert any(d.code == "clippy::needless_range_loop" for d in result.diagnostics)


def test_allow_attributes_do_not_hide_warnings(toolchain):
    code = "#![allow(warnings, unused)]\npub fn f() -> i32 { let unused_value = 1; 2 }\n"
    result = compile_rust(code, toolchain=toolchain)
    assert result.success and result.n_warnings >= 1


def test_reference_solution_passes_its_task_tests(toolchain, task):
    result = compile_rust(task["solution"], tests=task["tests"], reference=task["solution"], toolchain=toolchain)
    assert result.status == "ok" and result.tests_compiled
    assert result.tests_passed == result.tests_total == len(re.findall(r"#\[test\]", task["tests"])) > 0


def test_tests_without_a_reference_solution_are_refused(toolchain, task):
    with pytest.raises(ValueError, match="reference solution"):
        compile_rust(task["solution"], tests=task["tests"], toolchain=toolchain)


def test_code_that_does_not_fit_the_tests_compiles_but_its_tests_do_not(toolchain, task):
    result = compile_rust("pub fn unrelated() {}\n", tests=task["tests"], reference=task["solution"], toolchain=toolchain)
    assert result.success and not result.tests_compiled
    assert result.status == "tests_compile_error" and result.n_errors >= 1 and result.test_fraction == 0.0


def test_test_binary_runs_inside_the_sandbox(toolchain):
    if not capabilities().bwrap:
        pytest.skip("bubblewrap is not available: without it the sandbox does not hide host files")
    here = Path(__file__).resolve()  # exists on the host, so only the sandbox can hide it
    tests = f"""#[cfg(test)]
mod tests {{
    #[test]
    fn host_files_are_out_of_reach() {{
        assert_eq!(std::fs::read_to_string("/etc/passwd").is_err(), true);
        assert_eq!(std::fs::metadata({json.dumps(str(here))}).is_err(), true);
        assert_eq!(super::double(2), 4); // a value of the program: a test a stub passes is refused
    }}
}}"""
    frames = reference_frames("pub fn double(x: i32) -> i32 { 2 * x }\n", tests, toolchain=toolchain, cache=ReferenceCache())
    (frame,) = frames.values()
    assert [line.endswith(', "true")') for line in frame.observations] == [True, True, False]


def test_infinite_loop_costs_one_test_its_time_limit_not_the_run(toolchain):
    tests = (
        "#[cfg(test)]\nmod tests {\n    #[test]\n    fn spins() { assert_eq!(super::answer(true), 1) }\n"
        "    #[test]\n    fn returns() { assert_eq!(super::answer(false), 2) }\n}"
    )
    reference = "pub fn answer(spin: bool) -> u8 { if spin { 1 } else { 2 } }\n"
    code = "pub fn answer(spin: bool) -> u8 { while spin { std::hint::spin_loop(); } 2 }\n"
    result = compile_rust(code, tests=tests, reference=reference, toolchain=toolchain, timeout=60, test_timeout=1)
    if not result.tests_compiled:
        pytest.skip(f"the machine is too busy to compile in time: {result.status}")
    assert result.passed_names == ("tests::returns",) and result.tests_total == 2
    assert result.timed_out and result.status == "test_timeout"  # the run went on to the other test


def test_should_panic_tests_pass_only_programs_that_panic_where_the_reference_does(toolchain):
    tests = (
        "#[cfg(test)]\nmod tests {\n    #[test]\n    #[should_panic]\n"
        "    fn empty_pop_panics() { let mut s = super::Stack::default(); s.push(3);\n"
        "        assert_eq!(s.pop(), 3);\n        s.pop();\n    }\n}"
    )
    reference = "#[derive(Default)]\npub struct Stack(Vec<i32>);\nimpl Stack {\n    pub fn push(&mut self, x: i32) { self.0.push(x) }\n    pub fn pop(&mut self) -> i32 { self.0.pop().expect(\"empty\") }\n}\n"
    lenient = reference.replace('self.0.pop().expect(\"empty\")', "self.0.pop().unwrap_or(0)")
    stub = reference.replace('self.0.pop().expect(\"empty\")', "todo!()")
    results = [compile_rust(code, tests=tests, reference=reference, toolchain=toolchain, timeout=60)
               for code in (reference, lenient, stub)]  # fmt: skip
    assert [r.tests_passed for r in results] == [1, 0, 0]  # the stub panics too, but before recording 3


def test_const_eval_loop_fails_the_build_in_seconds(toolchain):
    code = "pub const SPIN: u64 = { let mut i = 0u64; loop { i = i.wrapping_add(1); if i == 0 { break i; } } };\n"
    result = compile_rust(code, toolchain=toolchain, timeout=60)
    assert not result.success and not result.timed_out  # the lint ended the build, not the 60 s deadline
    assert any(d.code == "long_running_const_eval" for d in result.diagnostics)


def test_a_program_cannot_allow_the_const_eval_lint(toolchain):
    result = compile_rust("#![allow(long_running_const_eval)]\npub fn f() {}\n", toolchain=toolchain)
    assert not result.success and any(d.code == "E0453" for d in result.diagnostics)


def test_parse_diagnostics_skips_summaries_and_notes():
    lines = [
        {"$message_type": "diagnostic", "level": "error", "message": "mismatched types",
         "code": {"code": "E0308"}, "spans": [{"is_primary": True, "line_start": 3}], "rendered": "error[E0308]"},
        {"$message_type": "diagnostic", "level": "warning", "message": "unused variable: `x`",
         "code": {"code": "unused_variables"}, "spans": [], "rendered": ""},
        {"$message_type": "diagnostic", "level": "error", "message": "aborting due to 1 previous error",
         "code": None, "spans": []},
        {"$message_type": "diagnostic", "level": "warning", "message": "1 warning emitted", "code": None, "spans": []},
        {"$message_type": "diagnostic", "level": "failure-note", "message": "For more information", "spans": []},
    ]  # fmt: skip
    stderr = "\n".join(json.dumps(line) for line in lines) + "\nnot json\n"
    found = parse_diagnostics(stderr)
    assert [(d.level, d.code, d.line) for d in found] == [("error", "E0308", 3), ("warning", "unused_variables", None)]
