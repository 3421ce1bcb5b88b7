import math

from solution import sum_list


def test_empty():
    assert sum_list([]) == 0 and sum_list([0, 2]) == 2


def test_single():
    assert sum_list([7]) == 7


def test_ints():
    assert sum_list([1, 2, 3, 4]) == 10


def test_negatives():
    assert sum_list([-5, 5, -1]) == -1 and sum_list([-5, -1]) == -6


def test_floats():
    assert math.isclose(sum_list([0.5, 0.25, 0.25]), 1.0, abs_tol=1e-9)
    assert math.isclose(sum_list([0.5, 0.25]), 0.75, abs_tol=1e-9)
