import itertools

from solution import Peekable


def test_iterates_all_items():
    assert list(Peekable([1, 2, 3])) == [1, 2, 3]


def test_peek_does_not_consume():
    p = Peekable("ab")
    assert p.peek() == "a" and p.peek() == "a"
    assert next(p) == "a" and list(p) == ["b"]


def test_peek_at_end_returns_default():
    p = Peekable([1])
    next(p)
    assert p.peek("done") == "done" and p.peek() is None


def test_next_at_end_raises_stop_iteration():
    assert next(Peekable([5])) == 5
    p = Peekable([])
    try:
        next(p)
    except StopIteration:
        return
    raise AssertionError("next on an exhausted Peekable should raise StopIteration")


def test_none_items_and_infinite_input():
    p = Peekable([None, 1])
    assert p.peek("empty") is None and next(p) is None and next(p) == 1
    q = Peekable(itertools.count())
    assert q.peek() == 0 and next(q) == 0 and next(q) == 1 and q.peek() == 2
