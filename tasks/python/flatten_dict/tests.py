from solution import flatten_dict


def test_example():
    assert flatten_dict({"a": 1, "b": {"c": 2, "d": {"e": 3}}}) == {"a": 1, "b.c": 2, "b.d.e": 3}


def test_custom_separator():
    assert flatten_dict({"x": {"y": 1}}, sep="/") == {"x/y": 1}


def test_lists_are_values():
    assert flatten_dict({"a": {"b": [1, {"c": 2}]}}) == {"a.b": [1, {"c": 2}]}


def test_empty_nested_dict_disappears():
    assert flatten_dict({"a": {}, "b": 1}) == {"b": 1}


def test_depth_first_order():
    result = flatten_dict({"a": {"x": 1, "y": 2}, "b": 3})
    assert list(result) == ["a.x", "a.y", "b"]
