from solution import is_pangram


def test_pangram():
    assert is_pangram("Sphinx of black quartz, judge my vow") is True
    assert is_pangram("Sphinx of black quartz, judge my ow") is False


def test_missing_letter():
    assert is_pangram("Sphinx of black quartz, judge my cow") is False
    assert is_pangram("Sphinx of black quartz, judge my cow, Val") is True


def test_upper_case():
    assert is_pangram("PACK MY BOX WITH FIVE DOZEN LIQUOR JUGS") is True
    assert is_pangram("PACK MY BOX WITH FIVE DOZEN LIQUOR MUGS") is False


def test_empty():
    assert is_pangram("") is False and is_pangram("the quick brown fox jumps over the lazy dog") is True
