from solution import dict_diff


def test_example():
    result = dict_diff({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 5, "d": 4})
    assert result == {"added": ["d"], "removed": ["c"], "changed": ["b"]}


def test_identical():
    assert dict_diff({"x": [1]}, {"x": [1]}) == {"added": [], "removed": [], "changed": []}


def test_lists_sorted():
    result = dict_diff({"z": 0, "y": 0}, {"b": 1, "a": 1})
    assert result == {"added": ["a", "b"], "removed": ["y", "z"], "changed": []}


def test_none_value_differs_from_missing():
    assert dict_diff({"k": None}, {}) == {"added": [], "removed": ["k"], "changed": []}
