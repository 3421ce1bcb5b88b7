from solution import is_prime


def test_small_primes():
    assert [n for n in range(20) if is_prime(n)] == [2, 3, 5, 7, 11, 13, 17, 19]


def test_negative_and_one():
    assert not is_prime(-7) and not is_prime(1) and is_prime(7) is True


def test_square_of_prime():
    assert not is_prime(49) and is_prime(47) is True


def test_large_prime():
    assert is_prime(999999000001) is True and is_prime(999999000001 * 3) is False
