from solution import is_leap_year


def test_divisible_by_four():
    assert is_leap_year(2024) is True and is_leap_year(2026) is False


def test_ordinary_year():
    assert is_leap_year(2023) is False and is_leap_year(2028) is True


def test_century_is_not_leap():
    assert is_leap_year(1900) is False and is_leap_year(1904) is True


def test_four_hundred_is_leap():
    assert is_leap_year(2000) is True and is_leap_year(2100) is False
