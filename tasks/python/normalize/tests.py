import math

from solution import normalize


def _close(xs, ys):
    return type(xs) is list and len(xs) == len(ys) and all(math.isclose(x, y, abs_tol=1e-9) for x, y in zip(xs, ys))


def _raises(numbers):
    try:
        normalize(numbers)
    except ValueError:
        return True
    return False


def test_example():
    assert _close(normalize([2, 4, 6]), [0.0, 0.5, 1.0])


def test_negatives_and_order():
    assert _close(normalize([3, -1, 0]), [1.0, 0.0, 0.25])


def test_two_values():
    assert _close(normalize([10, 5]), [1.0, 0.0])


def test_equal_values_raise():
    assert _raises([4, 4, 4]) and _close(normalize([4, 4, 5]), [0.0, 0.0, 1.0])


def test_empty_raises():
    assert _raises([]) and _close(normalize([1, 2]), [0.0, 1.0])
