from solution import rename_keys


def test_example():
    assert rename_keys({"fn": "Ada", "age": 36}, {"fn": "first_name"}) == {"first_name": "Ada", "age": 36}


def test_order_kept():
    result = rename_keys({"a": 1, "b": 2, "c": 3}, {"a": "z"})
    assert list(result) == ["z", "b", "c"]


def test_input_unchanged():
    data = {"a": 1}
    assert rename_keys(data, {"a": "b"}) == {"b": 1} and data == {"a": 1}


def test_unused_mapping_ignored():
    assert rename_keys({"x": 1}, {"y": "q"}) == {"x": 1} and rename_keys({"y": 1}, {"y": "q"}) == {"q": 1}
