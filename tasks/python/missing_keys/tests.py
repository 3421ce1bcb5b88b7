from solution import missing_keys


def test_example():
    assert missing_keys({"name": "Ada"}, ["name", "email", "age"]) == ["age", "email"]


def test_nothing_missing():
    assert missing_keys({"a": 1, "b": 2}, ["b", "a"]) == [] and missing_keys({"a": 1}, ["b", "a"]) == ["b"]


def test_empty_record():
    assert missing_keys({}, ["z", "m", "a"]) == ["a", "m", "z"]


def test_none_value_is_present():
    assert missing_keys({"a": None}, ["a", "b"]) == ["b"]
