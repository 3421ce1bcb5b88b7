from solution import leaders


def test_example():
    assert leaders([9, 4, 7, 1, 3, 2]) == [9, 7, 3, 2]


def test_ascending_has_one_leader():
    assert leaders([1, 2, 3]) == [3]


def test_descending_all_leaders():
    assert leaders([5, 3, 1]) == [5, 3, 1] and leaders([5, 3, 4, 1]) == [5, 4, 1]


def test_equal_values_are_not_strictly_greater():
    assert leaders([5, 5]) == [5]


def test_empty():
    assert leaders([]) == [] and leaders([0, 1]) == [1]
