import math

from solution import hypotenuse


def test_three_four_five():
    assert math.isclose(hypotenuse(3, 4), 5, abs_tol=1e-9)


def test_five_twelve_thirteen():
    assert math.isclose(hypotenuse(5, 12), 13, abs_tol=1e-9)


def test_unit_sides():
    assert math.isclose(hypotenuse(1, 1), 2 ** 0.5, abs_tol=1e-9)


def test_zero_side():
    assert math.isclose(hypotenuse(0, 7), 7, abs_tol=1e-9)
