from solution import parse_key_values


def _raises_value_error(text):
    try:
        parse_key_values(text)
    except ValueError:
        return True
    return False


def test_example():
    assert parse_key_values("a=1; b = two;") == {"a": "1", "b": "two"}


def test_empty():
    assert parse_key_values("") == {} and parse_key_values(";k=;") == {"k": ""}


def test_override():
    assert parse_key_values("k=1;k=2") == {"k": "2"}


def test_value_may_contain_equals():
    assert parse_key_values("url=a=b") == {"url": "a=b"}


def test_missing_equals():
    assert _raises_value_error("a=1;oops") and parse_key_values("a=1;oops=") == {"a": "1", "oops": ""}


def test_empty_key():
    assert _raises_value_error("=5") and parse_key_values("k=5") == {"k": "5"}
