import math

from solution import moving_average


def _close(a, b):
    return type(a) is list and len(a) == len(b) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(a, b))


def test_example():
    assert _close(moving_average([1, 2, 3, 4], 2), [1.5, 2.5, 3.5])


def test_too_short():
    assert moving_average([1, 2], 3) == [] and moving_average([1, 2], 2) == [1.5]


def test_window_one():
    assert _close(moving_average([5, 6], 1), [5.0, 6.0]) and _close(moving_average([5, 6], 2), [5.5])


def test_bad_k():
    assert moving_average([1], 1) == [1.0]
    try:
        moving_average([1], 0)
    except ValueError:
        return
    raise AssertionError("expected ValueError")
