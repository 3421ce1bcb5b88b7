from solution import integer_sqrt


def test_example():
    assert integer_sqrt(17) == 4


def test_perfect_square():
    assert integer_sqrt(144) == 12


def test_zero_and_one():
    assert integer_sqrt(0) == 0 and integer_sqrt(1) == 1 and integer_sqrt(3) == 1


def test_huge_numbers():
    r = 10**40 + 12345
    assert integer_sqrt(r * r) == r
    assert integer_sqrt(r * r - 1) == r - 1


def test_negative_raises():
    assert integer_sqrt(4) == 2
    try:
        integer_sqrt(-4)
    except ValueError:
        return
    raise AssertionError("a negative n should raise ValueError")
