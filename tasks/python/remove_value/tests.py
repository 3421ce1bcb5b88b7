from solution import remove_value


def test_example():
    assert remove_value([1, 2, 1, 3], 1) == [2, 3]


def test_value_absent():
    assert remove_value([4, 5], 9) == [4, 5] and remove_value([4, 5], 4) == [5]


def test_everything_removed():
    assert remove_value(["a", "a"], "a") == [] and remove_value(["a", "a"], "b") == ["a", "a"]


def test_input_unchanged():
    items = [1, 2, 1]
    assert remove_value(items, 1) == [2]
    assert items == [1, 2, 1]
