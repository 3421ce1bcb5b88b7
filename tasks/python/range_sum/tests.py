from solution import range_sum


def test_example():
    assert range_sum(1, 10) == 55


def test_single_number():
    assert range_sum(5, 5) == 5 and range_sum(5, 6) == 11


def test_negative_start():
    assert range_sum(-3, 4) == 4


def test_empty_range():
    assert range_sum(5, 1) == 0 and range_sum(1, 5) == 15


def test_large_range():
    assert range_sum(1, 10**6) == 500000500000
