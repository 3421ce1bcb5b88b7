from solution import parse_bool


def _raises(text):
    try:
        parse_bool(text)
    except ValueError:
        return True
    return False


def test_true_words():
    assert all(parse_bool(w) is True for w in ("true", "yes", "on", "1"))


def test_false_words():
    assert all(parse_bool(w) is False for w in ("false", "no", "off", "0"))


def test_case_and_whitespace():
    assert parse_bool(" Yes ") is True and parse_bool("\tFALSE\n") is False


def test_unknown_word():
    assert _raises("maybe")


def test_empty():
    assert _raises("")
