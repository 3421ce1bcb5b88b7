import itertools

from solution import take


def test_from_string():
    assert take("hello", 3) == ["h", "e", "l"]


def test_infinite_iterator():
    assert take(itertools.count(10), 4) == [10, 11, 12, 13]


def test_shorter_than_n():
    assert take([1, 2], 5) == [1, 2] and take([1, 2], 1) == [1]


def test_does_not_overconsume():
    it = iter([1, 2, 3, 4])
    assert take(it, 2) == [1, 2]
    assert next(it) == 3


def test_negative_raises():
    assert take([1, 2, 3], 0) == [] and take("abc", 2) == ["a", "b"]
    try:
        take([1, 2, 3], -1)
    except ValueError:
        return
    raise AssertionError("a negative n should raise ValueError")
