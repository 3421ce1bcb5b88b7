from solution import deep_get


def test_found():
    assert deep_get({"a": {"b": {"c": 1}}}, "a.b.c") == 1


def test_missing_key():
    assert deep_get({"a": {}}, "a.x") is None


def test_not_a_dict():
    assert deep_get({"a": 1}, "a.b", 0) == 0


def test_falsy_value_is_returned():
    assert deep_get({"a": {"b": 0}}, "a.b", 5) == 0
