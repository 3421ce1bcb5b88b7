"""Tests for rusty_hf/rewards/rust/ast_metrics.py: what analyze_ast counts in real Rust sources (no compiler)."""

from __future__ import annotations

from rusty_hf.rewards.rust.ast_metrics import analyze_ast


def test_prose_and_empty_text_are_not_parseable():
    assert not analyze_ast("Sure! Use a loop over the vector and add the items up.").parseable
    assert not analyze_ast("").parseable
    assert not analyze_ast("fn main() {").parseable  # truncated generation


def test_structure_counts_items_and_longest_function():
    code = """
pub struct Point { x: i32, y: i32 }
enum Shape { Dot(Point) }
trait Area { fn area(&self) -> f64; }
impl Area for Shape {
    fn area(&self) -> f64 {
        0.0
    }
}
fn helper() {}
"""
    m = analyze_ast(code)
    assert m.parseable
    assert (m.n_structs, m.n_enums, m.n_traits, m.n_impls, m.n_functions) == (1, 1, 1, 1, 2)
    assert m.longest_function == 3


def test_cyclomatic_complexity_is_per_function_and_counts_each_branch():
    code = """
fn simple() -> i32 { 1 }
fn branchy(a: bool, b: bool, n: i32) -> i32 {
    if a && b || n > 3 { return 1; }   // if, &&, ||: +3
    for _ in 0..n {}                   // +1
    while n < 0 {}                     // +1
    match n { 0 => 0, 1 => 1, _ => 2 } // three arms: +2
}
"""
    m = analyze_ast(code)
    assert m.cyclomatic == 1 + 3 + 1 + 1 + 2
    assert m.cyclomatic_total == 1 + m.cyclomatic + 1  # simple (1) + branchy + the file's own 1


def test_max_nesting_counts_control_flow_depth_not_else_if_chains():
    nested = "fn f(n: i32) { if n > 0 { for _ in 0..n { match n { _ => {} } } } }"
    chain = "fn g(n: i32) -> i32 { if n == 0 { 0 } else if n == 1 { 1 } else if n == 2 { 2 } else { 3 } }"
    assert analyze_ast(nested).max_nesting == 3
    assert analyze_ast(chain).max_nesting == 1


def test_panics_count_unwrap_expect_and_panicking_macros():
    code = """
fn f(v: Vec<i32>) -> i32 {
    let a = v.first().unwrap();
    let b = v.last().expect("empty");
    if *a < 0 { panic!("negative"); }
    if *b < 0 { todo!() }
    unimplemented!()
}
"""
    assert analyze_ast(code).panics == 5


def test_unsafe_blocks_and_functions_are_counted():
    code = "unsafe fn raw() {}\nfn f() { unsafe { raw() } }"
    assert analyze_ast(code).unsafe == 2
    assert analyze_ast("fn f() {}").unsafe == 0


def test_doc_comments_and_item_coverage():
    code = """//! Crate docs.
/// Documented, above an attribute.
#[derive(Debug)]
pub struct A;
/// Documented.
pub fn f() {}
// a plain comment is not documentation
pub fn g() {}
"""
    m = analyze_ast(code)
    assert m.doc_comments == 2 + 1  # the crate doc and two item docs
    assert (m.documented_items, m.documentable_items) == (2, 3)


def test_error_handling_counts_result_option_types_and_question_marks():
    code = """
fn parse(s: &str) -> Result<i32, std::num::ParseIntError> {
    let n: i32 = s.trim().parse()?;
    Ok(n)
}
fn first(v: &[i32]) -> Option<i32> { v.first().copied() }
"""
    m = analyze_ast(code)
    assert m.result_option_types == 2
    assert m.question_marks == 1
    assert m.panics == 0


def test_idioms_count_iterators_closures_matches_and_method_chains():
    code = """
fn evens(v: &[i32]) -> Vec<i32> {
    v.iter().filter(|x| *x % 2 == 0).map(|x| x * 2).collect::<Vec<_>>()
}
fn sign(n: i32) -> &'static str { match n { 0 => "zero", _ => "other" } }
"""
    m = analyze_ast(code)
    assert m.iterator_calls == 4  # iter, filter, map, collect (through the turbofish)
    assert m.closures == 2
    assert m.matches == 1
    assert (m.method_chains, m.longest_chain) == (1, 4)


def test_lines_of_code_skip_blank_and_comment_lines():
    code = "// one\n\n/* block\n   comment */\nfn f() {\n    // inside\n    let x = 1;\n}\n"
    assert analyze_ast(code).loc == 3
