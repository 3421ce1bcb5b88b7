from solution import int_to_roman


def test_small():
    assert int_to_roman(3) == "III" and int_to_roman(4) == "IV"


def test_year():
    assert int_to_roman(1994) == "MCMXCIV"


def test_max():
    assert int_to_roman(3999) == "MMMCMXCIX"


def test_out_of_range():
    assert int_to_roman(1) == "I"
    for bad in (0, 4000):
        try:
            int_to_roman(bad)
        except ValueError:
            continue
        raise AssertionError(f"expected ValueError for {bad}")
