from solution import simplify_fraction


def test_reduces():
    assert simplify_fraction(6, 8) == (3, 4)


def test_sign_moves_to_numerator():
    assert simplify_fraction(6, -8) == (-3, 4)


def test_two_negatives_make_positive():
    assert simplify_fraction(-4, -6) == (2, 3)


def test_zero():
    assert simplify_fraction(0, -5) == (0, 1)


def test_zero_denominator_raises():
    assert simplify_fraction(2, 1) == (2, 1)
    try:
        simplify_fraction(1, 0)
    except ValueError:
        return
    raise AssertionError("a zero denominator should raise ValueError")
