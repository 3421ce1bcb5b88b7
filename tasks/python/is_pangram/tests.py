from solution import is_pangram


def test_pangram():
    assert is_pangram("Sphinx of black quartz, judge my vow") is True


def test_missing_letter():
    assert is_pangram("Sphinx of black quartz, judge my cow") is False


def test_upper_case():
    assert is_pangram("PACK MY BOX WITH FIVE DOZEN LIQUOR JUGS") is True


def test_empty():
    assert is_pangram("") is False
