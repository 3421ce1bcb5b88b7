from solution import safe_int


def test_string_with_spaces():
    assert safe_int(" 42 ") == 42


def test_bad_string():
    assert safe_int("4x") is None and safe_int("4") == 4


def test_none_with_default():
    assert safe_int(None, 0) == 0 and safe_int(None, 7) == 7


def test_bool_rejected():
    assert safe_int(True, -1) == -1 and safe_int(False) is None and safe_int(1, -1) == 1


def test_float_truncates():
    assert safe_int(3.9) == 3
