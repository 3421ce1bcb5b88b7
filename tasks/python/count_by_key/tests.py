from solution import count_by_key


def test_example():
    records = [{"c": "red"}, {"c": "blue"}, {"c": "red"}, {}]
    assert count_by_key(records, "c") == {"red": 2, "blue": 1}


def test_first_seen_order():
    records = [{"n": 3}, {"n": 1}, {"n": 3}, {"n": 2}]
    assert list(count_by_key(records, "n").items()) == [(3, 2), (1, 1), (2, 1)]


def test_key_nowhere():
    assert count_by_key([{"a": 1}], "b") == {} and count_by_key([{"a": 1}], "a") == {1: 1}


def test_empty():
    assert count_by_key([], "a") == {} and count_by_key([{"a": 0}], "a") == {0: 1}
