from solution import mask_card_number


def test_spaces():
    assert mask_card_number("4000 1234 5678 9010") == "**** **** **** 9010"


def test_dashes():
    assert mask_card_number("1234-5678-9012") == "****-****-9012"


def test_no_separators():
    assert mask_card_number("12345678") == "****5678"


def test_last_group_split_by_separator():
    assert mask_card_number("123 456") == "**3 456"


def test_short_unchanged():
    assert mask_card_number("1234") == "1234" and mask_card_number("12345") == "*2345"
