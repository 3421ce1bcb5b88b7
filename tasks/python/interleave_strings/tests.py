from solution import interleave_strings


def test_second_longer():
    assert interleave_strings("abc", "12345") == "a1b2c345"


def test_first_longer():
    assert interleave_strings("wxyz", "1") == "w1xyz"


def test_equal_lengths():
    assert interleave_strings("ab", "CD") == "aCbD"


def test_one_empty():
    assert interleave_strings("", "xyz") == "xyz"
