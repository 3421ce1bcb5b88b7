from solution import validate_password


def test_strong_password():
    assert validate_password("Tr0ub4dor&3") == [] and validate_password("Tr0ub4dor") == []
    assert validate_password("Tr0ub4d") == ["too short"]


def test_example():
    assert validate_password("abc") == ["too short", "no uppercase", "no digit"]


def test_empty():
    assert validate_password("") == ["too short", "no lowercase", "no uppercase", "no digit"]


def test_whitespace():
    assert validate_password("Correct Horse 9") == ["has whitespace"]


def test_only_digit_missing():
    assert validate_password("LongEnoughPass") == ["no digit"]
