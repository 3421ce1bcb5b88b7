"""The Rust reward's test harness: how a task's tests run against a program, and how the host decides
from what those runs print which tests passed -- without taking the program's word for anything.

A test never decides its own verdict. In the build the reward runs, every ``assert_eq!(actual,
expected)`` of a task's tests (``tasks/README.md``) only *records* ``actual``: it writes one line,
the expression's text and the Debug rendering of its value; the expected side is dropped before
it is compiled, so it is in neither the binary nor its memory. The host first runs the same tests
against the task's trusted reference solution (sandboxed too; once per task, cached by content
hash; the tests must also pass as written there, with std's ``assert_eq!``, and record the same
values twice) and keeps what each test recorded. A test of a program passes when its process
recorded exactly the reference's lines, in order, ended with status 0 as the reference's did, and
its frame (the shell's begin line, the records, the shell's end line) appears exactly once. The
reference run also runs the tests against a stub of the reference that computes nothing
(``stub.py``) and refuses the task when the stub passes a test: a reversed ``assert_eq!(expected,
actual)`` records its expected value whatever the program, and a test a default answers pays a constant.

Each test runs in a process of its own (``tests_bin --exact NAME``, the names taken from the
reference's binary, never the program's) under a wall-clock and an output limit, so a crash, an
exit, a hang or a flood costs only that test and gives no other test anything.

Threat model. The code under test shares its process with the test and can do anything the process
can: read all of its memory, argv (so it knows which test runs), environment and /proc; write any
line to any descriptor (a forged frame, a forged ``test result: ok``); exit early, abort, loop,
catch panics, run code before ``main`` (an ``.init_array`` static) or at exit, kill the shell that
runs the tests. None of that is trusted, and none of it helps: what passes a test is the reference's
exact record of it, which lives only in the host, and a duplicated frame passes nothing. Forging
the record means computing the values the test observes, i.e. answering correctly. The expression
text in every line keeps a guess of common constants ("true", "None") from fitting other tests.
What else is shut:

- the tests' source is readable neither at compile time nor at run time: the shell reads it into
  its own memory and deletes the file before any compiler starts, and feeds it to ``rustc`` through
  a pipe, so ``include_str!``, ``include_bytes!`` and inline-assembly ``.incbin`` in the program find
  no file (the program's own source and the toolchain's sysroot are all there is);
- the harness is appended after the program, so its ``assert_eq!`` shadows any ``macro_rules!`` of
  the program (an exported one is ambiguous: a build error); it names everything by absolute path
  (``::std::...``); a first dummy item would take an attribute left dangling (the program is also
  checked alone first, which rejects one); ``assert!``/``assert_ne!`` in tests are a build error
  (a bare ``true`` is too easy to forge: ``assert_eq!(x, true)`` says which call gave it);
- rustc's ``long_running_const_eval`` lint is forbidden (``-F``), so a const-eval loop fails the build
  in about a second instead of burning the CPU limit, and a program cannot ``allow`` it.

What is not stopped: a program that learns, from the reward over many samples, the answers a test
expects and returns them for that test's inputs or name -- the limit of any fixed hidden test set.

    from rusty_hf.rewards.rust.harness import harness_source, expected_frames, passed_tests
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from os import PathLike

from rusty_hf.rewards.rust.cache import ScoreCache

OBSERVED = "@@rusty-obs "
BEGIN = "@@rusty-begin "
END = "@@rusty-end "
PLAIN = "@@rusty-plain "  # the reference run's exit code of the tests as written (std's assert_eq!)
REFERENCE_ROUNDS = 2  # the reference runs every test twice: a test must record the same lines each time

# Appended after the program, before the tests. Every path is absolute and every macro it uses is
# called by path, so nothing the program defines can stand in for them.
PRELUDE = r"""
// ---- rusty_hf harness: records what the tests observe; the host compares (rusty_hf/rewards/rust/harness.py)
const _: () = (); // takes any attribute the program left dangling at its end

#[allow(warnings)]
fn __rusty_observe<T: ?::core::marker::Sized + ::std::fmt::Debug>(expression: &str, value: &T) {
    let line = ::std::format!("\n@@rusty-obs {:?}\n", (expression, ::std::format!("{:?}", value)));
    let _ = ::std::io::Write::write_all(&mut ::std::io::stderr(), line.as_bytes());
}

#[allow(unused_macros)]
macro_rules! assert_eq {
    ($left:expr, $right:expr $(,)?) => { $crate::__rusty_observe(::std::stringify!($left), &$left) };
    ($left:expr, $right:expr, $($message:tt)+) => { $crate::__rusty_observe(::std::stringify!($left), &$left) };
}

// A bare `true` is too easy to forge: assert_eq!(x, true) records which call gave it.
#[allow(unused_macros)]
macro_rules! assert { ($($any:tt)*) => { ::std::compile_error!("rusty_hf harness: write assert_eq!(actual, expected), not assert!") }; }
#[allow(unused_macros)]
macro_rules! assert_ne { ($($any:tt)*) => { ::std::compile_error!("rusty_hf harness: write assert_eq!(actual, expected), not assert_ne!") }; }
#[allow(unused_macros)]
macro_rules! debug_assert { ($($any:tt)*) => { ::std::compile_error!("rusty_hf harness: write assert_eq!(actual, expected)") }; }
#[allow(unused_macros)]
macro_rules! debug_assert_eq { ($($any:tt)*) => { ::std::compile_error!("rusty_hf harness: write assert_eq!(actual, expected)") }; }
#[allow(unused_macros)]
macro_rules! debug_assert_ne { ($($any:tt)*) => { ::std::compile_error!("rusty_hf harness: write assert_eq!(actual, expected)") }; }

#[allow(warnings)]
"""


class TaskReferenceError(ValueError):
    """The task's reference solution does not give a usable record of its tests (the task is broken).

    ``permanent`` is False for what may pass on a retry (the run timed out on a busy machine).
    """

    def __init__(self, message: str, *, permanent: bool = True) -> None:
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class Frame:
    """What one test process recorded between its begin and end lines; ``exit_code`` None: no end line."""

    observations: tuple[str, ...]
    exit_code: int | None


def harness_source(code: str, tests: str) -> str:
    """The crate the tests build compiles: the program, the harness prelude, then the task's tests."""
    return f"{code}\n{PRELUDE}{tests}\n"


def parse_frames(stdout: str) -> dict[str, list[Frame]]:
    """Every frame per test name, in order. Lines outside a frame are ignored; an end line that
    closes no open frame of its name counts as a broken frame of that name."""
    frames: dict[str, list[Frame]] = {}
    name, lines = None, []  # the open frame
    for line in stdout.split("\n"):
        if line.startswith(BEGIN):
            if name is not None:
                frames.setdefault(name, []).append(Frame(tuple(lines), None))
            name, lines = line[len(BEGIN) :], []
        elif line.startswith(END):
            closed, _, code = line[len(END) :].rpartition(" ")
            exit_code = int(code) if code.lstrip("-").isdigit() else None
            if closed == name and exit_code is not None:
                frames.setdefault(name, []).append(Frame(tuple(lines), exit_code))
            else:
                frames.setdefault(closed, []).append(Frame((), None))
                if name is not None:
                    frames.setdefault(name, []).append(Frame(tuple(lines), None))
            name, lines = None, []
        elif line.startswith(OBSERVED) and name is not None:
            lines.append(line)
    if name is not None:
        frames.setdefault(name, []).append(Frame(tuple(lines), None))
    return frames


def expected_frames(stdout: str) -> dict[str, Frame]:
    """The reference run's record of each test (in the order run), checked for use as the expectation.

    Raises:
        TaskReferenceError: the tests as written fail, no test ran, or a test failed, recorded nothing
            or recorded different lines twice.
    """
    if f"{PLAIN}0" not in stdout.split("\n"):
        raise TaskReferenceError(
            "the reference solution fails its own tests as written (their assert_eq!s with std's meaning): fix the task"
        )
    expected: dict[str, Frame] = {}
    for name, frames in parse_frames(stdout).items():
        first = frames[0]
        if len(frames) != REFERENCE_ROUNDS or any(f.exit_code is None for f in frames):
            raise TaskReferenceError(f"the reference run of test {name} did not finish cleanly ({len(frames)} frames)")
        if first.exit_code != 0:
            raise TaskReferenceError(f"the reference solution fails its own test {name} (exit {first.exit_code}): fix the task")
        if not first.observations:
            raise TaskReferenceError(f"test {name} observes nothing: every test needs an assert_eq!(actual, expected)")
        if any(f != first for f in frames):
            raise TaskReferenceError(
                f"test {name} records different values on each run of the reference (a HashMap's order?): "
                "observe something deterministic, e.g. a sorted Vec or a BTreeMap"
            )
        expected[name] = first
    if not expected:
        raise TaskReferenceError("the reference run found no #[test] to run in the task's tests")
    return expected


def passed_tests(expected: dict[str, Frame], stdout: str) -> tuple[str, ...]:
    """The tests whose only frame in ``stdout`` is exactly the reference's."""
    frames = parse_frames(stdout)
    return tuple(name for name, want in expected.items() if frames.get(name) == [want])


def frames_to_json(expected: dict[str, Frame]) -> dict:
    return {"tests": [[name, list(frame.observations)] for name, frame in expected.items()]}


def frames_from_json(value: dict) -> dict[str, Frame]:
    return {name: Frame(tuple(lines), 0) for name, lines in value["tests"]}


class ReferenceCache:
    """The reference records, by content hash: computed once per key (concurrent callers wait for
    the first), kept in memory and, with ``directory``, on disk. A permanent failure is remembered
    too, so a broken task costs one run, not one per sample."""

    def __init__(self, max_entries: int = 1024, directory: str | PathLike | None = None) -> None:
        self._store = ScoreCache(max_entries, directory)
        self._locks: dict[str, threading.Lock] = {}
        self._errors: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str, compute: Callable[[], dict[str, Frame]]) -> dict[str, Frame]:
        with self._lock:
            key_lock = self._locks.setdefault(key, threading.Lock())
        with key_lock:
            if key in self._errors:
                raise TaskReferenceError(self._errors[key])
            stored = self._store.get(key)
            if stored is not None:
                return frames_from_json(stored)
            try:
                expected = compute()
            except TaskReferenceError as exc:
                if exc.permanent:
                    self._errors[key] = str(exc)
                raise
            self._store.put(key, frames_to_json(expected))
            return expected


DEFAULT_REFERENCES = ReferenceCache()  # shared by every caller that brings no cache of its own

__all__ = [
    "DEFAULT_REFERENCES",
    "PRELUDE",
    "Frame",
    "ReferenceCache",
    "TaskReferenceError",
    "expected_frames",
    "harness_source",
    "parse_frames",
    "passed_tests",
]
