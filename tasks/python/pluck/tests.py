from solution import pluck


def test_example():
    assert pluck([{"id": 1}, {"name": "x"}, {"id": 3}], "id") == [1, 3]


def test_empty_list():
    assert pluck([], "id") == [] and pluck([{"id": 0}], "id") == [0]


def test_key_nowhere():
    assert pluck([{"a": 1}, {"b": 2}], "c") == [] and pluck([{"a": 1}, {"b": 2}], "b") == [2]


def test_none_value_kept():
    assert pluck([{"a": None}, {"a": 0}], "a") == [None, 0]
