from solution import prime_factors


def test_example():
    assert prime_factors(60) == [2, 2, 3, 5]


def test_prime():
    assert prime_factors(13) == [13]


def test_one_has_no_factors():
    assert prime_factors(1) == [] and prime_factors(2) == [2]


def test_power_of_two():
    assert prime_factors(1024) == [2] * 10


def test_large_prime_factor():
    assert prime_factors(2 * 999983) == [2, 999983]


def test_zero_raises():
    assert prime_factors(9) == [3, 3]
    try:
        prime_factors(0)
    except ValueError:
        return
    raise AssertionError("prime_factors(0) should raise ValueError")
