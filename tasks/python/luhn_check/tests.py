from solution import luhn_check


def test_valid():
    assert luhn_check("4539 3195 0343 6467") is True and luhn_check("4539 3195 0343 6476") is False


def test_one_digit_changed():
    assert luhn_check("4539 3195 0343 6468") is False and luhn_check("4539 3195 0343 6467") is True


def test_doubling_above_nine():
    assert luhn_check("059") is True
    assert luhn_check("095") is False


def test_too_short():
    assert luhn_check("0") is False
    assert luhn_check(" 0 ") is False and luhn_check(" 00 ") is True


def test_other_characters():
    assert luhn_check("4539-3195-0343-6467") is False and luhn_check("4539319503436467") is True
