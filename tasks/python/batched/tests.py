import itertools

from solution import batched


def test_example():
    assert list(batched("abcde", 2)) == [("a", "b"), ("c", "d"), ("e",)]


def test_exact():
    assert list(batched([1, 2, 3, 4], 2)) == [(1, 2), (3, 4)]


def test_empty():
    assert list(batched([], 3)) == [] and list(batched([7], 3)) == [(7,)]


def test_lazy():
    first = next(iter(batched(itertools.count(), 3)))
    assert first == (0, 1, 2)


def test_bad_n():
    assert list(batched([1], 1)) == [(1,)]
    try:
        list(batched([1], 0))
    except ValueError:
        return
    raise AssertionError("expected ValueError")
