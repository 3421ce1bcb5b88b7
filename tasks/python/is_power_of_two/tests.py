from solution import is_power_of_two


def test_one_is_two_to_the_zero():
    assert is_power_of_two(1) is True and is_power_of_two(3) is False


def test_powers():
    assert all(is_power_of_two(2**k) is True for k in range(1, 70))
    assert not any(is_power_of_two(2**k + 1) for k in range(1, 70))


def test_not_powers():
    assert is_power_of_two(12) is False and is_power_of_two(2**40 + 2**3) is False and is_power_of_two(16) is True


def test_zero_and_negative():
    assert is_power_of_two(0) is False and is_power_of_two(-8) is False and is_power_of_two(8) is True
