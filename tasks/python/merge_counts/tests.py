from solution import merge_counts


def test_overlap():
    assert merge_counts({"x": 1, "y": 2}, {"y": 3, "z": 4}) == {"x": 1, "y": 5, "z": 4}


def test_empty():
    assert merge_counts({}, {}) == {} and merge_counts({}, {"z": 1}) == {"z": 1}


def test_one_side():
    assert merge_counts({"a": 2}, {}) == {"a": 2} and merge_counts({"a": 2}, {"a": 1}) == {"a": 3}


def test_inputs_untouched():
    a, b = {"k": 1}, {"k": 2}
    assert merge_counts(a, b) == {"k": 3}
    assert a == {"k": 1} and b == {"k": 2}
