from solution import is_isogram


def test_isogram():
    assert is_isogram("lumberjack") is True and is_isogram("lumberjacks") is True and is_isogram("lumberjacka") is False


def test_repeat_ignoring_case():
    assert is_isogram("Alpha") is False and is_isogram("Alph") is True


def test_hyphens_and_spaces_may_repeat():
    assert is_isogram("six-year old") is True and is_isogram("six-year-olds") is False


def test_plain_repeat():
    assert is_isogram("letter") is False and is_isogram("leTr") is True


def test_empty():
    assert is_isogram("") is True and is_isogram("aA") is False
