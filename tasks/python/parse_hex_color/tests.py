from solution import parse_hex_color


def _raises(text):
    try:
        parse_hex_color(text)
    except ValueError:
        return True
    return False


def test_long_form():
    assert parse_hex_color("#FF8800") == (255, 136, 0)


def test_short_form():
    assert parse_hex_color("#f80") == (255, 136, 0)


def test_lower_case():
    assert parse_hex_color("#0a0b0c") == (10, 11, 12)


def test_missing_hash():
    assert _raises("ff8800") and parse_hex_color("#ff8801") == (255, 136, 1)


def test_wrong_length():
    assert _raises("#abcd") and parse_hex_color("#abc") == (170, 187, 204)


def test_not_hex():
    assert _raises("#gg0000") and parse_hex_color("#ee0000") == (238, 0, 0)
