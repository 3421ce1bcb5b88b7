import math

from solution import celsius_to_fahrenheit


def test_freezing():
    assert celsius_to_fahrenheit(0) == 32


def test_boiling():
    assert celsius_to_fahrenheit(100) == 212


def test_minus_forty_is_the_same():
    assert celsius_to_fahrenheit(-40) == -40 and celsius_to_fahrenheit(-10) == 14


def test_fraction():
    assert math.isclose(celsius_to_fahrenheit(37), 98.6, abs_tol=1e-9)
