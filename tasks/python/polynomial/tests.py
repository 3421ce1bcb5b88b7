from solution import Polynomial


def test_evaluate():
    p = Polynomial([1, 0, 2])
    assert p(0) == 1 and p(3) == 19


def test_add_different_lengths():
    assert Polynomial([1, 2]) + Polynomial([0, 0, 5]) == Polynomial([1, 2, 5])
    assert (Polynomial([1, 2]) + Polynomial([0, 0, 5]))(2) == 25


def test_multiply():
    assert Polynomial([1, 1]) * Polynomial([-1, 1]) == Polynomial([-1, 0, 1])
    assert (Polynomial([1, 1]) * Polynomial([-1, 1]))(3) == 8


def test_trailing_zeros_ignored():
    assert Polynomial([1, 2, 0, 0]) == Polynomial([1, 2]) and Polynomial([1]) != Polynomial([1, 1])


def test_degree():
    assert Polynomial([4, 0, 0, 3]).degree() == 3 and Polynomial([0, 0]).degree() == 0


def test_cancelling_lowers_degree():
    total = Polynomial([1, 2]) + Polynomial([0, -2])
    assert total == Polynomial([1]) and total.degree() == 0
