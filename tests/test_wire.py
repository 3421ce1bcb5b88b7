"""Tests for the execution reward's wire format (rusty_hf/rewards/python_exec/sandboxed/wire.py): exact types, strict decoding."""

from __future__ import annotations

import itertools
import math

import pytest

from rusty_hf.rewards.python_exec.sandboxed import wire
from rusty_hf.rewards.python_exec.sandboxed.wire import HOST_TAGS, SANDBOX_TAGS, WireError

PLAIN = [None, True, False, 0, -7, 10**40, 1.5, "é\n\"", b"\x00\xff", [], [1, [2]], (1, "a"), {3, 4},
         frozenset({5}), {"k": [1], 2: (3,)}, ((),)]  # fmt: skip


def no_handles(value: object) -> None:
    return None


def roundtrip(value: object, tags: frozenset[str] = SANDBOX_TAGS) -> object:
    return wire.loads(wire.dumps(wire.encode(value, no_handles)), tags)


@pytest.mark.parametrize("value", PLAIN, ids=repr)
def test_plain_values_come_back_equal_and_of_the_same_type(value):
    back = roundtrip(value)
    assert back == value and type(back) is type(value)


def test_nan_and_infinity_travel():
    back = roundtrip([math.nan, math.inf, -math.inf])
    assert math.isnan(back[0]) and back[1:] == [math.inf, -math.inf]


def test_subclasses_of_plain_types_never_travel_as_values():
    class Text(str):
        def __eq__(self, other):
            return True

    seen = []

    def handles(value):
        if type(value) in (list, tuple, set, frozenset, dict, bytes):
            return None
        seen.append(value)
        return {"h": [len(seen) - 1, "o"]}

    encoded = wire.encode([1, Text("x"), True], handles)
    assert encoded == [1, {"h": [0, "o"]}, True] and type(seen[0]) is Text


def test_an_unknown_type_without_a_handle_is_refused():
    with pytest.raises(TypeError):
        wire.encode(object(), no_handles)


@pytest.mark.parametrize("line", [
    b'{"x": 1}', b'{"t": [1], "s": [2]}', b'{"t": 1}', b'{"d": [[1]]}', b'{"d": [[[1], 2]]}', b'{"s": [[1]]}',
    b'{"b": "!!"}', b'{"h": [1, "o"]}', b'{"a": 0}', b"[1,", b"\xff", b"[" * 100_000 + b"]" * 100_000,
    b"9" * 5000,
], ids=lambda line: repr(line[:20]))  # fmt: skip
def test_malformed_or_unexpected_messages_are_refused(line):
    with pytest.raises(WireError):
        wire.loads(line, SANDBOX_TAGS)  # no handle or argument resolver given


@pytest.mark.parametrize("tagged", [{"r": [0, 3, 1]}, {"c": [0, 1]}, {"i": [[1, 2], 0]}], ids=str)
def test_ranges_counters_and_iterators_only_travel_from_the_host(tagged):
    line = wire.dumps(tagged)
    assert wire.loads(line, HOST_TAGS) is not None
    with pytest.raises(WireError):
        wire.loads(line, SANDBOX_TAGS)  # an endless counter must never reach a test's list()


def test_an_iterator_arrives_at_its_position():
    host = iter([1, 2, 3])
    next(host)
    encoded = {"i": [list(host.__reduce__()[1][0]), host.__reduce__()[2]]}
    assert list(wire.loads(wire.dumps(encoded), HOST_TAGS)) == [2, 3]
    assert list(itertools.islice(wire.loads(b'{"c": [5, 2]}', HOST_TAGS), 2)) == [5, 7]


def test_many_long_integers_are_refused():
    with pytest.raises(WireError, match="digits"):
        wire.loads(wire.dumps([10**20 + k for k in range(wire.MAX_BIG_INTS + 1)]), SANDBOX_TAGS)


def test_a_set_of_colliding_keys_is_refused_before_it_is_built():
    colliding = [(k * (2**61 - 1) + 7) for k in range(1, 300)]  # equal hashes, distinct values
    line = wire.dumps({"s": [{"t": [c]} for c in colliding]})
    with pytest.raises(WireError, match="share a hash"):
        wire.loads(line, SANDBOX_TAGS)


def test_colliding_tuples_deep_in_lists_are_refused():
    line = wire.dumps([[[{"t": [k * (2**61 - 1), 1]} for k in range(1, 900)]]])
    with pytest.raises(WireError):
        wire.loads(line, SANDBOX_TAGS)


def test_repeated_equal_tuples_are_fine():
    moves = [("A", "C"), ("A", "B"), ("C", "B")] * 400
    assert roundtrip(moves) == moves


def test_handles_and_argument_references_go_to_their_resolvers():
    line = wire.dumps([{"h": [4, "o"]}, {"a": 1}])
    assert wire.loads(line, SANDBOX_TAGS, handle=lambda p: ("handle", p[0]), argument=lambda n: ("arg", n)) == [
        ("handle", 4), ("arg", 1)]
