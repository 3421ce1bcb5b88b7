from solution import countdown


def test_example():
    assert list(countdown(3)) == [3, 2, 1]


def test_one():
    assert list(countdown(1)) == [1]


def test_zero_and_negative_yield_nothing():
    assert list(countdown(0)) == [] and list(countdown(-4)) == [] and list(countdown(2)) == [2, 1]


def test_is_lazy_iterator():
    gen = countdown(10**12)
    assert next(gen) == 10**12 and next(gen) == 10**12 - 1
