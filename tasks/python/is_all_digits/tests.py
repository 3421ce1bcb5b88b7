from solution import is_all_digits


def test_digits():
    assert is_all_digits("2024") is True and is_all_digits("2024.") is False


def test_empty():
    assert is_all_digits("") is False and is_all_digits("0") is True


def test_space_or_sign():
    assert is_all_digits("20 24") is False and is_all_digits("-5") is False and is_all_digits("5") is True


def test_letter():
    assert is_all_digits("12a") is False and is_all_digits("12") is True


def test_unicode_digit():
    assert is_all_digits("10\u00b2") is False and is_all_digits("102") is True
