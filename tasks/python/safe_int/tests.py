from solution import safe_int


def test_string_with_spaces():
    assert safe_int(" 42 ") == 42


def test_bad_string():
    assert safe_int("4x") is None


def test_none_with_default():
    assert safe_int(None, 0) == 0


def test_bool_rejected():
    assert safe_int(True, -1) == -1


def test_float_truncates():
    assert safe_int(3.9) == 3
