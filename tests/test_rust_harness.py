"""Tests for rusty_hf/rewards/rust/harness.py: how the host reads test records and decides verdicts.

No rustc needed: the runs' output is written here by hand (test_rust_reward_hacks.py runs real programs).
"""

from __future__ import annotations

import threading
import time

import pytest

from rusty_hf.rewards.rust.harness import (
    Frame,
    ReferenceCache,
    TaskReferenceError,
    expected_frames,
    harness_source,
    parse_frames,
    passed_tests,
)

A = '@@rusty-obs ("f(1)", "2")'
B = '@@rusty-obs ("f(2)", "true")'


def frame(name: str, *lines: str, code: int | str = 0) -> str:
    return "\n".join([f"@@rusty-begin {name}", *lines, f"@@rusty-end {name} {code}"]) + "\n"


def reference_run(*frames: str, plain: int = 0) -> str:
    return f"@@rusty-plain {plain}\n" + "".join(f + f for f in frames)  # every test twice


EXPECTED = {"tests::a": Frame((A,), 0), "tests::b": Frame((A, B), 0)}


def test_a_test_passes_with_exactly_the_reference_record_once():
    run = frame("tests::a", "", A, "running 1 test", "test tests::a ... ok") + frame("tests::b", A, B)
    assert passed_tests(EXPECTED, run) == ("tests::a", "tests::b")


def test_a_different_value_an_extra_record_or_a_missing_one_fails_the_test():
    assert passed_tests(EXPECTED, frame("tests::a", '@@rusty-obs ("f(1)", "3")')) == ()
    assert passed_tests(EXPECTED, frame("tests::a", A, A)) == ()
    assert passed_tests(EXPECTED, frame("tests::b", A)) == ()


def test_a_nonzero_exit_or_no_end_line_fails_the_test():
    assert passed_tests(EXPECTED, frame("tests::a", A, code=101)) == ()
    assert passed_tests(EXPECTED, f"@@rusty-begin tests::a\n{A}\n") == ()


def test_a_frame_that_appears_twice_passes_neither_time():
    assert passed_tests(EXPECTED, frame("tests::a", A) + frame("tests::a", A)) == ()


def test_a_forged_end_line_inside_a_frame_leaves_the_real_one_closing_nothing():
    forged = f"@@rusty-begin tests::a\n{A}\n@@rusty-end tests::a 0\n@@rusty-end tests::a 101\n"
    assert parse_frames(forged)["tests::a"] == [Frame((A,), 0), Frame((), None)]
    assert passed_tests(EXPECTED, forged) == ()


def test_a_frame_forged_for_another_test_breaks_the_open_one_and_doubles_the_other():
    run = f"@@rusty-begin tests::a\n{frame('tests::b', A, B)}@@rusty-end tests::a 0\n" + frame("tests::b", A, B)
    assert passed_tests(EXPECTED, run) == ()


def test_records_outside_any_frame_are_ignored():
    assert passed_tests(EXPECTED, f"{B}\n" + frame("tests::a", A) + f"{B}\n") == ("tests::a",)


def test_the_reference_record_is_each_test_run_twice_alike():
    run = reference_run(frame("tests::a", A), frame("tests::b", A, B))
    assert expected_frames(run) == EXPECTED and list(expected_frames(run)) == ["tests::a", "tests::b"]


@pytest.mark.parametrize(
    ("run", "says"),
    [
        (reference_run(frame("tests::a", A), plain=101), "as written"),
        ("@@rusty-plain 0\n", "found no"),
        (reference_run(frame("tests::a", A, code=101)), "fails its own test tests::a"),
        (reference_run(frame("tests::a")), "observes nothing"),
        ("@@rusty-plain 0\n" + frame("tests::a", A) + frame("tests::a", B), "different values"),
        ("@@rusty-plain 0\n" + frame("tests::a", A), "did not finish cleanly"),
    ],
)
def test_an_unusable_reference_run_says_what_to_fix(run, says):
    with pytest.raises(TaskReferenceError, match=says):
        expected_frames(run)


def test_harness_source_puts_the_harness_between_program_and_tests():
    source = harness_source("pub fn f() {}", "#[cfg(test)]\nmod tests {}")
    assert source.index("pub fn f") < source.index("macro_rules! assert_eq") < source.index("mod tests")
    assert "compile_error!" in source  # assert!/assert_ne! are refused in the tests


def test_reference_cache_computes_once_for_concurrent_callers():
    cache, calls = ReferenceCache(), []

    def compute() -> dict[str, Frame]:
        calls.append(1)
        time.sleep(0.05)
        return dict(EXPECTED)

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get("k", compute))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and results == [EXPECTED] * 4


def test_reference_cache_keeps_records_on_disk(tmp_path):
    ReferenceCache(directory=tmp_path).get("k", lambda: dict(EXPECTED))
    assert ReferenceCache(directory=tmp_path).get("k", lambda: pytest.fail("computed again")) == EXPECTED


def test_reference_cache_remembers_permanent_failures_only():
    cache, calls = ReferenceCache(), []

    def broken(permanent: bool):
        def compute():
            calls.append(permanent)
            raise TaskReferenceError("broken", permanent=permanent)

        return compute

    for _ in range(2):
        with pytest.raises(TaskReferenceError):
            cache.get("timed-out", broken(False))
        with pytest.raises(TaskReferenceError):
            cache.get("fails", broken(True))
    assert calls == [False, True, False]
