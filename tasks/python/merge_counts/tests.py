from solution import merge_counts


def test_overlap():
    assert merge_counts({"x": 1, "y": 2}, {"y": 3, "z": 4}) == {"x": 1, "y": 5, "z": 4}


def test_empty():
    assert merge_counts({}, {}) == {}


def test_one_side():
    assert merge_counts({"a": 2}, {}) == {"a": 2}


def test_inputs_untouched():
    a, b = {"k": 1}, {"k": 2}
    merge_counts(a, b)
    assert a == {"k": 1} and b == {"k": 2}
