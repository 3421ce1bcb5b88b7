from solution import is_isogram


def test_isogram():
    assert is_isogram("lumberjack") is True


def test_repeat_ignoring_case():
    assert is_isogram("Alpha") is False


def test_hyphens_and_spaces_may_repeat():
    assert is_isogram("six-year old") is True


def test_plain_repeat():
    assert is_isogram("letter") is False


def test_empty():
    assert is_isogram("") is True
