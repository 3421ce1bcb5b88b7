from solution import Polynomial

# A polynomial's results are judged on plain values -- its value at a few points and its degree --
# never on its own ==, which test_equality_ignores_trailing_zeros judges both ways.
POINTS = (-2, -1, 0, 1, 2, 3)


def _values(p):
    return [p(x) for x in POINTS]


def test_evaluate():
    p = Polynomial([1, 0, 2])
    assert p(0) == 1 and p(3) == 19


def test_add_different_lengths():
    total = Polynomial([1, 2]) + Polynomial([0, 0, 5])
    assert _values(total) == [17, 4, 1, 8, 25, 52] and total.degree() == 2


def test_multiply():
    product = Polynomial([1, 1]) * Polynomial([-1, 1])
    assert _values(product) == [3, 0, -1, 0, 3, 8] and product.degree() == 2


def test_equality_ignores_trailing_zeros():
    assert (Polynomial([1, 2, 0, 0]) == Polynomial([1, 2])) is True
    assert (Polynomial([1]) == Polynomial([1, 1])) is False


def test_degree():
    assert Polynomial([4, 0, 0, 3]).degree() == 3 and Polynomial([0, 0]).degree() == 0


def test_cancelling_lowers_degree():
    total = Polynomial([1, 2, 3]) + Polynomial([0, 0, -3])
    assert _values(total) == [-3, -1, 1, 3, 5, 7] and total.degree() == 1
    assert (Polynomial([1, 2]) + Polynomial([0, -2])).degree() == 0
