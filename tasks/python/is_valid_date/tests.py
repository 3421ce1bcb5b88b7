from solution import is_valid_date


def test_valid_dates():
    assert is_valid_date("2024-02-29") is True
    assert is_valid_date("1999-12-31") is True and is_valid_date("1999-12-32") is False


def test_not_a_leap_year():
    assert is_valid_date("2023-02-29") is False and is_valid_date("2023-02-28") is True


def test_century_rule():
    assert is_valid_date("1900-02-29") is False
    assert is_valid_date("2000-02-29") is True


def test_month_and_day_range():
    assert is_valid_date("2024-13-01") is False
    assert is_valid_date("2024-04-31") is False
    assert is_valid_date("2024-01-00") is False and is_valid_date("2024-04-30") is True


def test_format():
    assert is_valid_date("2024-2-03") is False
    assert is_valid_date("24-02-03") is False
    assert is_valid_date("2024/02/03") is False and is_valid_date("2024-02-03") is True
