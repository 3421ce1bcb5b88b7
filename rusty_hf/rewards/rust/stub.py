"""Stubs of a Rust program that compute nothing, for the check that no task test passes without the program.

The Rust harness drops the expected side of ``assert_eq!(actual, expected)`` and records the actual
side (``harness.py``). A test written the other way round, ``assert_eq!(5, add(2, 3))``, records
the literal ``5`` for any program that does not panic: a test every answer passes. So the reference
run (``compiler.reference_frames``) also runs the task's tests against a stub of the reference
and refuses the task when the stub passes a test -- which also catches a test that a constant passes
(``assert_eq!(is_even(7), false)`` alone).

:func:`default_stub` keeps the reference's items and signatures and replaces every function body by
``Default::default()`` of its return type where that type has one (``0``, ``false``, ``""``, ``None``,
an empty ``Vec``, a derived ``Default``...) and a panic where it has none or cannot be named (``impl
Trait``, a ``const fn``); a function returning nothing does nothing. The choice is made by the
compiler, per return type, with autoref-based method resolution (``STUB_PRELUDE``). A panic comes
before the original body, which stays (unreachable) so that an ``impl Trait`` keeps its type.
:func:`panic_stub` panics in every function: the fallback when the first does not build.

    from rusty_hf.rewards.rust.stub import default_stub
    default_stub("pub fn add(a: i32, b: i32) -> i32 { a + b }")   # ... -> i32 { <Default of i32> }
"""

from __future__ import annotations

from collections.abc import Callable

from rusty_hf.rewards.rust.ast_metrics import _parser
from rusty_hf.rewards.rust.harness import Frame, TaskReferenceError, passed_tests
from rusty_hf.sandbox import SandboxResult

STUB_PRELUDE = """
// ---- rusty_hf stub: Default::default() where the type has it, else a panic (rusty_hf/rewards/rust/stub.py)
#[allow(warnings)]
mod __rusty_stub {
    pub struct Probe<T>(pub ::core::marker::PhantomData<T>);
    pub trait ViaDefault<T> { fn make(&self) -> T; }
    impl<T: ::core::default::Default> ViaDefault<T> for Probe<T> { fn make(&self) -> T { T::default() } }
    pub trait ViaPanic<T> { fn make(&self) -> T; }
    impl<T> ViaPanic<T> for &Probe<T> { fn make(&self) -> T { ::core::panic!("rusty_hf stub") } }
}
"""


def _stub_body(function, body, source: bytes, default: bool) -> bytes:
    returns = function.child_by_field_name("return_type")
    modifiers = next((c for c in function.children if c.type == "function_modifiers"), None)
    if default and returns is None:
        return b"{}"
    if not default or _names_abstract_type(returns) or (modifiers is not None and b"const" in modifiers.text):
        # The original body stays, unreachable, so that an `impl Trait` still has a type to stand for.
        return b'{ ::core::panic!("rusty_hf stub"); ' + source[body.start_byte : body.end_byte] + b" }"
    kind = source[returns.start_byte : returns.end_byte]
    return (
        b"{ #[allow(unused_imports)] use crate::__rusty_stub::{ViaDefault as _, ViaPanic as _}; "
        b"(&crate::__rusty_stub::Probe::<" + kind + b">(::core::marker::PhantomData)).make() }"
    )


def _names_abstract_type(node) -> bool:
    stack = [node]
    while stack:
        item = stack.pop()
        if item.type == "abstract_type":
            return True
        stack.extend(item.children)
    return False


def _stub(code: str, default: bool) -> str:
    source = code.encode()
    bodies, stack = [], [_parser().parse(source).root_node]
    while stack:
        node = stack.pop()
        body = node.child_by_field_name("body") if node.type == "function_item" else None
        if body is not None:  # a function inside this body goes with it
            bodies.append((body.start_byte, body.end_byte, _stub_body(node, body, source, default)))
        else:
            stack.extend(node.children)
    for start, end, replacement in sorted(bodies, reverse=True):
        source = source[:start] + replacement + source[end:]
    return source.decode() + (STUB_PRELUDE if default else "")


def default_stub(code: str) -> str:
    """``code`` with every function answering ``Default::default()``, doing nothing, or panicking."""
    return _stub(code, default=True)


def panic_stub(code: str) -> str:
    """``code`` with every function body a panic."""
    return _stub(code, default=False)


def refuse_tests_a_stub_passes(
    expected: dict[str, Frame], reference: str, run_tests: Callable[[str], tuple[bool, SandboxResult]]
) -> None:
    """Raise :class:`TaskReferenceError` when a stub of ``reference`` passes a test of ``expected``.

    ``run_tests(code)`` builds the task's tests against ``code`` and runs them the way a program's
    are run: (whether the tests built and ran, the sandbox's result). The panic stub stands in when
    the default stub does not build; when neither does, the task is refused too.
    """
    for stub, kind in ((default_stub(reference), "returns Default::default()"), (panic_stub(reference), "panics")):
        ran, result = run_tests(stub)
        if ran:
            break
    else:
        raise TaskReferenceError(f"no stub of the reference builds with its tests: {result.stderr.strip()[-500:]}")
    if result.timed_out:
        raise TaskReferenceError("the run of the tests against a stub of the reference timed out", permanent=False)
    if passing := passed_tests(expected, result.stdout):
        raise TaskReferenceError(
            f"test {', '.join(passing)} passes for a program whose every function {kind}: it records no value "
            "the program computes. Write assert_eq!(actual, expected), the program's result first, and give "
            'each test a case that a default (0, false, "", None, empty) does not answer'
        )
