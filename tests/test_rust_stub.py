"""Tests for rusty_hf/rewards/rust/stub.py: stubs of a program that compute nothing, built with the real rustc.

The task-level check that uses them (a test a stub passes is refused) is in test_rust_reward_hacks.py.
"""

from __future__ import annotations

import pytest

from rusty_hf.rewards.rust.stub import default_stub, panic_stub
from rusty_hf.sandbox import Limits, run
from tests.test_rust_compile import toolchain  # noqa: F401 -- the fixture: find_toolchain(), or a skip

PROGRAM = """
pub fn number(x: i32) -> i32 { x + 1 }
pub fn text(s: &str) -> String { s.to_uppercase() }
pub fn tail(s: &str) -> &str { &s[1..] }
pub fn first(v: &[u8]) -> Option<u8> { v.first().copied() }
pub fn upto(n: usize) -> Vec<usize> { (0..n).collect() }
#[derive(Debug, Default)]
pub struct Point { pub x: i32 }
impl Point {
    pub fn new(x: i32) -> Self { Point { x } }
    pub fn shift(&mut self) { fn step() -> i32 { 1 } self.x += step() }
}
pub fn parsed(s: &str) -> Result<i32, String> { s.parse().map_err(|_| s.to_string()) }
pub fn evens(n: u32) -> impl Iterator<Item = u32> { (0..n).filter(|x| x % 2 == 0) }
pub fn pick<T>(items: Vec<T>) -> T { items.into_iter().next().unwrap() }
pub const fn twice(x: u8) -> u8 { x * 2 }
"""

MAIN = """
fn show<T: std::fmt::Debug>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> String {
    std::panic::catch_unwind(f).map(|v| format!("{v:?}")).unwrap_or_else(|_| "panic".into())
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let shown = [
        show(|| number(1)), show(|| text("a")), show(|| tail("ab")), show(|| first(&[3])), show(|| upto(2)),
        show(|| { let mut p = Point::new(5); p.shift(); p }),
        show(|| parsed("1")), show(|| evens(4).count()), show(|| pick(vec![1])), show(|| twice(2)),
    ];
    println!("{}", shown.join(" | "));
}
"""


def shown(code: str, toolchain) -> list[str]:  # noqa: F811 -- the fixture
    result = run(
        ["/bin/sh", "-c", f"{toolchain.rustc} --edition 2021 -A warnings -o prog main.rs && ./prog"],
        files={"main.rs": code + MAIN},
        ro_paths=[toolchain.sysroot],
        timeout=120,
        limits=Limits(cpu_s=60, memory_mb=4096),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip().split(" | ")


def test_the_program_computes(toolchain):  # noqa: F811
    assert shown(PROGRAM, toolchain) == ["2", '"A"', '"b"', "Some(3)", "[0, 1]", "Point { x: 6 }", "Ok(1)", "2", "1", "4"]


def test_the_default_stub_answers_each_types_default_and_panics_where_there_is_none(toolchain):  # noqa: F811
    # Result, impl Trait, an unbounded T and a const fn have no default to give (or none that can be named).
    assert shown(default_stub(PROGRAM), toolchain) == ["0", '""', '""', "None", "[]", "Point { x: 0 }"] + ["panic"] * 4


def test_the_panic_stub_panics_in_every_function(toolchain):  # noqa: F811
    assert shown(panic_stub(PROGRAM), toolchain) == ["panic"] * 10


@pytest.mark.parametrize("stub", [default_stub, panic_stub])
def test_a_stub_keeps_every_item_and_signature(stub):
    assert all(line.split("{")[0] in stub(PROGRAM) for line in PROGRAM.splitlines() if "fn " in line)
