import itertools

from solution import running_total


def test_list():
    assert list(running_total([1, 2, 3])) == [1, 3, 6]


def test_empty():
    assert list(running_total([])) == [] and list(running_total([0, 2, 1])) == [0, 2, 3]


def test_is_lazy_on_infinite_input():
    assert list(itertools.islice(running_total(itertools.count(1)), 4)) == [1, 3, 6, 10]


def test_returns_iterator():
    it = running_total(iter([5, 5]))
    assert next(it) == 5 and next(it) == 10
