import math

from solution import product_list


def test_example():
    assert product_list([2, 3, 4]) == 24


def test_empty_is_one():
    assert product_list([]) == 1 and product_list([7]) == 7


def test_zero_wins():
    assert product_list([5, 0, 7]) == 0 and product_list([5, 1, 7]) == 35


def test_negatives():
    assert product_list([-2, 3, -1, -1]) == -6


def test_floats():
    assert math.isclose(product_list([0.5, 4, 1.5]), 3.0, abs_tol=1e-9)
