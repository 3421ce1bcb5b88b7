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
    assert _raises("555-1234") and normalize_phone("555-1234-000") == "555-123-4000"


def test_letters():
    assert _raises("555-CALL-NOW") and normalize_phone("555-2255-669") == "555-225-5669"


def test_eleven_digits_without_country_code():
    assert _raises("25551234567") and normalize_phone("15551234567") == "555-123-4567"
