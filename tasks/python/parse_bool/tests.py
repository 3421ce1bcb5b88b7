from solution import parse_bool


def _raises(text):
    try:
        parse_bool(text)
    except ValueError:
        return True
    return False


def test_true_words():
    assert all(parse_bool(w) is True for w in ("true", "yes", "on", "1")) and parse_bool("no") is False


def test_false_words():
    assert all(parse_bool(w) is False for w in ("false", "no", "off", "0")) and parse_bool("yes") is True


def test_case_and_whitespace():
    assert parse_bool(" Yes ") is True and parse_bool("\tFALSE\n") is False


def test_unknown_word():
    assert _raises("maybe") and parse_bool("on") is True


def test_empty():
    assert _raises("") and parse_bool(" 0") is False
