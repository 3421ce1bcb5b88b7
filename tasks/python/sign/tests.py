from solution import sign


def test_negative():
    assert sign(-3.5) == -1 and sign(3.5) == 1


def test_zero():
    assert sign(0) == 0 and sign(-0.0) == 0 and sign(-2) == -1


def test_positive():
    assert sign(42) == 1 and sign(-42) == -1


def test_tiny_values():
    assert sign(1e-300) == 1 and sign(-1e-300) == -1
