from solution import digit_sum


def test_example():
    assert digit_sum(472) == 13


def test_negative_ignores_sign():
    assert digit_sum(-472) == 13


def test_zero():
    assert digit_sum(0) == 0 and digit_sum(10) == 1


def test_single_digit():
    assert digit_sum(8) == 8 and digit_sum(-8) == 8


def test_big_number():
    assert digit_sum(10**20 + 99) == 19
