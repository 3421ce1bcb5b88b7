from solution import deep_get


def test_found():
    assert deep_get({"a": {"b": {"c": 1}}}, "a.b.c") == 1 and deep_get({"a": {"b": {"c": 1}}}, "a.b") == {"c": 1}


def test_missing_key():
    assert deep_get({"a": {}}, "a.x") is None and deep_get({"a": {"x": 2}}, "a.x") == 2


def test_not_a_dict():
    assert deep_get({"a": 1}, "a.b", 0) == 0 and deep_get({"a": 1}, "a", 0) == 1


def test_falsy_value_is_returned():
    assert deep_get({"a": {"b": 0}}, "a.b", 5) == 0 and deep_get({"a": {"b": 0}}, "a.c", 5) == 5
