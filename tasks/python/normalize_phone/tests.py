from solution import normalize_phone


def _raises(text):
    try:
        normalize_phone(text)
    except ValueError:
        return True
    return False


def test_example():
    assert normalize_phone("(555) 123.4567") == "555-123-4567"


def test_country_code():
    assert normalize_phone("+1 555 123 4567") == "555-123-4567"


def test_too_short():
    assert _raises("555-1234")


def test_letters():
    assert _raises("555-CALL-NOW")


def test_eleven_digits_without_country_code():
    assert _raises("25551234567")
