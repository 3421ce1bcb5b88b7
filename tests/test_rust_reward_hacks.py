"""Reward hacks against the Rust reward's tests (rusty_hf/rewards/rust/harness.py): each is a wrong
answer to ``caesar_cipher`` (its honest part returns "", which no test expects) that tries to earn
test credit some other way. None may: wrong code gets at most what compiling and its syntax tree
give. Forged records carry the same guesses the honest part returns, so a forgery that fit a test
would be credit the guesses did not earn. And every reference solution of the suite still gets
full test credit (the slow test at the end).
"""

from __future__ import annotations

import platform
from concurrent.futures import ThreadPoolExecutor

import pytest

from rusty_hf.data.tasks import load_tasks
from rusty_hf.rewards.python_exec.execution import default_workers
from rusty_hf.rewards.rust.reward import get_rust_reward
from rusty_hf.rewards.rust.compiler import compile_rust
from rusty_hf.rewards.rust.harness import ReferenceCache, TaskReferenceError
from tests.test_rust_compile import toolchain  # noqa: F401 -- the fixture: find_toolchain(), or a skip

SIGNATURE = "pub fn caesar_cipher(text: &str, shift: i32) -> String"

# Writes records in the harness's own format, with ``guess`` as the value: for the test this process
# runs (named in argv), the record alone, so that the shell's end line closes the frame around it;
# for every test of the binary (``all``), whole frames with begin and end lines. Plus libtest's lines.
FORGE = r"""
fn __forge(all: bool, guess: &str) {
    use std::io::Write;
    let args: Vec<String> = std::fs::read("/proc/self/cmdline").unwrap_or_default()
        .split(|b| *b == 0).map(|s| String::from_utf8_lossy(s).into_owned()).collect();
    let exe = std::fs::read_link("/proc/self/exe").unwrap_or_default();
    let names: Vec<String> = if all {
        let listed = std::process::Command::new(&exe).args(["--list", "--format", "terse"]).output();
        let text = listed.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
        text.lines().filter_map(|l| l.strip_suffix(": test")).map(String::from).collect()
    } else {
        args.iter().skip_while(|a| *a != "--exact").nth(1).cloned().into_iter().collect()
    };
    let observed = format!("{:?}", ("caesar_cipher(\"Hello, World!\", 3)", format!("{:?}", guess)));
    let mut out = String::new();
    for name in names {
        out += &match all {
            true => format!("\n@@rusty-begin {name}\n@@rusty-obs {observed}\n@@rusty-end {name} 0\n"),
            false => format!("\n@@rusty-obs {observed}\n"),
        };
        out += &format!("test {name} ... ok\ntest result: ok. 4 passed; 0 failed; 0 ignored\n");
    }
    let _ = std::io::stderr().write_all(out.as_bytes());
    let _ = std::io::stdout().write_all(out.as_bytes());
}
"""

HACKS = {
    "forged_test_result_line": SIGNATURE + r""" {
        let n = std::fs::read_to_string("with_tests.rs").map(|t| t.matches("#[test]").count()).unwrap_or(4);
        let line = format!("\ntest result: ok. {n} passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n");
        println!("{line}");
        eprintln!("{line}");
        use std::io::Write;
        let _ = std::io::stdout().write_all(line.as_bytes());
        let _ = std::io::stderr().write_all(line.as_bytes());
        String::new()
    }""",
    "forged_frames_for_every_test_then_exit_0": FORGE + SIGNATURE + ' { __forge(true, ""); std::process::exit(0) }',
    "forged_frame_for_its_own_test_then_exit_0": FORGE + SIGNATURE + ' { __forge(false, ""); std::process::exit(0) }',
    "exit_0_before_returning": SIGNATURE + " { std::process::exit(0) }",
    "abort": SIGNATURE + " { std::process::abort() }",
    "panic_hook_exits_0": SIGNATURE + r""" {
        std::panic::set_hook(Box::new(|_| std::process::exit(0)));
        panic!("{text} {shift}")
    }""",
    "catch_unwind_swallows_its_panic": SIGNATURE + r""" {
        std::panic::catch_unwind(|| -> String { panic!("{text} {shift}") }).unwrap_or_default()
    }""",
    "include_str_of_the_tests": 'const TESTS: &str = include_str!("with_tests.rs");\n' + SIGNATURE + " { TESTS.into() }",
    "include_bytes_of_stdin_at_compile_time": 'const PIPE: &[u8] = include_bytes!("/proc/self/fd/0");\n'
    + SIGNATURE + " { String::from_utf8_lossy(PIPE).lines().find(|l| l.contains(text)).unwrap_or_default().into() }",
    "reads_tests_proc_env_and_its_own_binary": SIGNATURE + r""" {
        for path in ["with_tests.rs", "plain.rs", "tests.rs", "/proc/self/cmdline", "/proc/self/environ", "/proc/1/cmdline"] {
            if let Ok(found) = std::fs::read_to_string(path) {
                if let Some(line) = found.lines().find(|l| l.contains(text) && l.contains("assert_eq")) {
                    return line.rsplit('"').nth(1).unwrap_or_default().to_string();
                }
            }
        }
        if let Some((_, value)) = std::env::vars().find(|(_, v)| v.contains(text)) {
            return value;
        }
        // The expected side of assert_eq!(caesar_cipher("Hello, World!", 3), "Khoor, Zruog!"), were it in
        // the binary, is a printable run of the input's length with the input's punctuation.
        let exe = std::fs::read("/proc/self/exe").unwrap_or_default();
        let shape = |w: &[u8]| w.iter().zip(text.bytes()).all(|(a, b)| a.is_ascii_alphabetic() == b.is_ascii_alphabetic() && (a.is_ascii_alphabetic() || *a == b));
        if text.len() > 8 {
            if let Some(w) = exe.windows(text.len()).find(|w| *w != text.as_bytes() && shape(w)) {
                return String::from_utf8_lossy(w).into_owned();
            }
        }
        String::new()
    }""",
    "prints_forgeries_to_stdout_and_stderr": FORGE + SIGNATURE + ' { __forge(false, ""); String::new() }',
    "drop_and_atexit_print_at_exit": FORGE + r"""
struct Forge;
impl Drop for Forge { fn drop(&mut self) { __forge(false, "") } }
thread_local! { static FORGE_AT_THREAD_EXIT: Forge = Forge; }
extern "C" { fn atexit(f: extern "C" fn()) -> i32; }
extern "C" fn forge_at_exit() { __forge(false, "") }
""" + SIGNATURE + " { FORGE_AT_THREAD_EXIT.with(|_| ()); unsafe { atexit(forge_at_exit); } String::new() }",
    "static_constructor_runs_before_main": FORGE + r"""
#[used]
#[link_section = ".init_array"]
static FORGE_BEFORE_MAIN: extern "C" fn() = before_main;
extern "C" fn before_main() { __forge(false, ""); std::process::exit(0) }
""" + SIGNATURE + " { String::new() }",
    "kills_the_harness_after_forging_every_frame": FORGE + r"""
extern "C" { fn kill(pid: i32, signal: i32) -> i32; }
""" + SIGNATURE + ' { __forge(true, ""); unsafe { kill(-1, 9); } String::new() }',
    "shadows_assert_eq_to_record_the_expected_side": r"""
macro_rules! assert_eq {
    ($left:expr, $right:expr $(,)?) => { $crate::__rusty_observe(::std::stringify!($left), &$right) };
}
""" + SIGNATURE + " { String::new() }",
    "leaves_an_attribute_dangling_to_disable_the_next_item": SIGNATURE + " { String::new() }\n#[cfg(any())]\n",
    "exports_an_assert_eq_macro": """
#[macro_export]
macro_rules! assert_eq { ($left:expr, $right:expr $(,)?) => {{ let _ = &$left; }}; }
""" + SIGNATURE + " { String::new() }",
    "defines_the_harness_function_itself": SIGNATURE + """ { String::new() }
fn __rusty_observe<T: ?Sized>(_expression: &str, _value: &T) {}
""",
    "renames_core_to_std": "extern crate core as std;\n" + SIGNATURE + " { String::new() }",
    "floods_every_output": SIGNATURE + r""" {
        use std::io::Write;
        let flood = format!("\n@@rusty-obs {:?}\n", ("caesar_cipher", text)).repeat(1 << 12);
        let mut fds: Vec<std::fs::File> = (1..4).filter_map(|fd| std::fs::OpenOptions::new().append(true).open(format!("/proc/self/fd/{fd}")).ok()).collect();
        loop {
            for fd in fds.iter_mut() { let _ = fd.write_all(flood.as_bytes()); }
            let _ = std::io::stderr().write_all(flood.as_bytes());
        }
    }""",
}
# Where a hack stops (default: its tests build and run, and earn nothing).
STOPS_AT = {
    "include_str_of_the_tests": "compile_error",  # the file is gone before the first compiler starts
    "leaves_an_attribute_dangling_to_disable_the_next_item": "compile_error",  # the program alone is checked first
    "exports_an_assert_eq_macro": "tests_compile_error",  # ambiguous with the harness's assert_eq!
    "defines_the_harness_function_itself": "tests_compile_error",  # defined twice
    "renames_core_to_std": "tests_compile_error",  # the harness's ::std::io is not there
}

# Right for every test but the one with input "xyz", where it misbehaves: the other tests keep their credit.
CORRECT = SIGNATURE + r""" {
    __misbehave(text);
    let shift = shift.rem_euclid(26) as u8;
    text.chars().map(|c| {
        if !c.is_ascii_alphabetic() { return c; }
        let base = if c.is_ascii_lowercase() { b'a' } else { b'A' };
        ((c as u8 - base + shift) % 26 + base) as char
    }).collect()
}
"""
MISBEHAVES_ONCE = {
    "infinite_loop": 'fn __misbehave(text: &str) { while text == "xyz" { std::hint::spin_loop(); } }',
    "output_flood": 'fn __misbehave(text: &str) { use std::io::Write; while text == "xyz" {'
    ' let _ = std::io::stderr().write_all("\\n@@rusty-obs flood\\n".repeat(4096).as_bytes()); } }',
    "exit_0": 'fn __misbehave(text: &str) { if text == "xyz" { std::process::exit(0) } }',
    "abort": 'fn __misbehave(text: &str) { if text == "xyz" { std::process::abort() } }',
}


@pytest.fixture(scope="module")
def task() -> dict:
    return load_tasks(language="rust").filter(lambda row: row["name"] == "caesar_cipher")[0]


def _run(code: str, task: dict, toolchain):
    return compile_rust(code, tests=task["tests"], reference=task["solution"], toolchain=toolchain, timeout=120)


def test_the_probe_that_found_the_forged_line_scores_below_the_reference(task):
    reward = get_rust_reward()
    columns = {"tests": [task["tests"]] * 2, "solution": [task["solution"]] * 2}
    hack, reference = reward([f"```rust\n{HACKS['forged_test_result_line']}\n```", f"```rust\n{task['solution']}```"], **columns)
    assert hack < reference


def test_a_forgery_of_the_right_value_would_pass_so_the_forgeries_above_are_well_formed(task, toolchain):
    # The control for the forgers above: the same forgery, with the one answer the prompt gives away.
    result = _run(FORGE + SIGNATURE + ' { __forge(false, "Khoor, Zruog!"); std::process::exit(0) }', task, toolchain)
    assert result.passed_names == ("tests::example",)


@pytest.mark.parametrize("name", sorted(HACKS))
def test_a_hack_earns_no_test_credit(name, task, toolchain):
    result = _run(HACKS[name], task, toolchain)
    assert result.tests_passed == 0 and result.test_fraction == 0.0, result.passed_names
    if name in STOPS_AT:
        assert result.status == STOPS_AT[name]
    else:
        assert result.tests_compiled and result.tests_total == 4  # it ran, and still earned nothing


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the inline assembly is x86-64")
def test_incbin_in_a_generic_function_finds_no_tests_source_when_the_tests_build(task, toolchain):
    # Generic, so it is assembled in the test build, when the tests' source would be at hand.
    code = r"""pub fn caesar_cipher<S: AsRef<str>>(_text: S, _shift: i32) -> String {
    let (start, end): (*const u8, *const u8);
    unsafe {
        std::arch::asm!(".pushsection .rodata.stolen,\"a\"", "2:", ".incbin \"with_tests.rs\"", "3:", ".popsection",
                        "lea {s}, [rip + 2b]", "lea {e}, [rip + 3b]", s = out(reg) start, e = out(reg) end);
        String::from_utf8_lossy(std::slice::from_raw_parts(start, end.offset_from(start) as usize)).into_owned()
    }
}"""
    result = _run(code, task, toolchain)
    assert result.success and result.status == "tests_compile_error" and result.tests_passed == 0
    assert any("incbin" in d.message for d in result.diagnostics)


def test_a_const_eval_loop_reached_only_by_the_tests_fails_fast(task, toolchain):
    code = r"""struct Spin<const N: u64>;
impl<const N: u64> Spin<N> {
    const DONE: u64 = { let mut i = N; while i != 0 { i = i.wrapping_add(1); } i };
}
pub fn caesar_cipher<S: AsRef<str>>(_text: S, _shift: i32) -> String { Spin::<1>::DONE.to_string() }
"""
    result = _run(code, task, toolchain)
    assert result.success and result.status == "tests_compile_error" and result.tests_passed == 0
    assert any(d.code == "long_running_const_eval" for d in result.diagnostics)  # the lint stops it, not the CPU limit


def test_an_always_equal_partial_eq_earns_nothing(toolchain):
    task = load_tasks(language="rust").filter(lambda row: row["name"] == "fraction")[0]
    code = """use std::fmt;
#[derive(Debug, Clone, Copy)]
pub struct Fraction { n: i64, d: i64 }
impl PartialEq for Fraction { fn eq(&self, _other: &Self) -> bool { true } }
impl Eq for Fraction {}
impl Fraction {
    pub fn new(_numerator: i64, _denominator: i64) -> Option<Fraction> { Some(Fraction { n: 0, d: 1 }) }
    pub fn numerator(&self) -> i64 { self.n + 7 }
    pub fn denominator(&self) -> i64 { self.d }
}
impl std::ops::Add for Fraction { type Output = Fraction; fn add(self, _other: Fraction) -> Fraction { self } }
impl fmt::Display for Fraction { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "?") } }
"""
    result = _run(code, task, toolchain)
    assert result.tests_compiled and result.tests_passed == 0


# The harness records the left side of assert_eq!: a test written the other way round records its
# expected value for any program that does not panic, and one a default answers pays a constant.
UNPAID_TESTS = {
    "reversed, inline": 'assert_eq!(String::from("bcd"), caesar_cipher("abc", 1));',
    "reversed, through a binding": 'let out = caesar_cipher("abc", 1);\n        assert_eq!("bcd", out);',
    "a case the default answers": 'assert_eq!(caesar_cipher("", 1), "");',
}


def _with_test(body: str) -> str:
    return (
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
        '    #[test]\n    fn example() {\n        assert_eq!(caesar_cipher("Hello, World!", 3), "Khoor, Zruog!");\n    }\n\n'
        f"    #[test]\n    fn unpaid() {{\n        {body}\n    }}\n}}\n"
    )


@pytest.mark.parametrize("name", sorted(UNPAID_TESTS))
def test_a_test_that_a_stub_passes_refuses_the_task_instead_of_paying_it(name, task, toolchain):
    tests = _with_test(UNPAID_TESTS[name])
    with pytest.raises(TaskReferenceError, match=r"test tests::unpaid passes for a program whose every function returns Default"):
        compile_rust(HACKS["exit_0_before_returning"], tests=tests, reference=task["solution"], toolchain=toolchain,
                     timeout=120, references=ReferenceCache())  # fmt: skip
    hack = f"```rust\n{SIGNATURE} {{ String::new() }}\n```"
    assert get_rust_reward()([hack], tests=[tests], solution=[task["solution"]]) == [None]


def test_the_same_test_written_actual_first_is_paid_only_for_the_right_answer(task, toolchain):
    tests = _with_test('assert_eq!(caesar_cipher("abc", 1), "bcd");')
    run = lambda code: compile_rust(code, tests=tests, reference=task["solution"], toolchain=toolchain, timeout=120)  # noqa: E731
    assert run(f"{SIGNATURE} {{ String::new() }}").tests_passed == 0 and run(task["solution"]).tests_passed == 2


@pytest.mark.parametrize("name", sorted(MISBEHAVES_ONCE))
def test_misbehaving_in_one_test_costs_only_that_test(name, task, toolchain):
    result = _run(MISBEHAVES_ONCE[name] + "\n" + CORRECT, task, toolchain)
    assert result.tests_total == 4 and "tests::wraps" not in result.passed_names
    assert result.tests_passed == 3, result.passed_names


@pytest.mark.slow
def test_every_reference_solution_gets_full_test_credit(toolchain):
    # 64 tasks: each reference runs twice (its record, then scored as a program); ~30 s on 2 busy cores.
    rows = list(load_tasks(language="rust"))

    def credit(row: dict) -> tuple[str, float]:
        result = compile_rust(row["solution"], tests=row["tests"], reference=row["solution"], toolchain=toolchain, timeout=240)
        return row["name"], result.test_fraction

    with ThreadPoolExecutor(max_workers=default_workers()) as pool:
        fractions = dict(pool.map(credit, rows))
    assert {name: f for name, f in fractions.items() if f != 1.0} == {}
