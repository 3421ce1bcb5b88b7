from solution import factorial


def test_zero():
    assert factorial(0) == 1 and factorial(2) == 2


def test_five():
    assert factorial(5) == 120


def test_twenty():
    assert factorial(20) == 2432902008176640000


def test_negative_raises():
    assert factorial(3) == 6
    try:
        factorial(-3)
    except ValueError:
        return
    raise AssertionError("expected ValueError")
