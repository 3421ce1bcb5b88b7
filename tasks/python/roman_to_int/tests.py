from solution import roman_to_int


def test_simple():
    assert roman_to_int("III") == 3


def test_subtractive():
    assert roman_to_int("IV") == 4 and roman_to_int("XC") == 90


def test_year():
    assert roman_to_int("MCMXCIV") == 1994


def test_invalid_char():
    assert roman_to_int("XI") == 11
    try:
        roman_to_int("XIZ")
    except ValueError:
        return
    raise AssertionError("expected ValueError")
