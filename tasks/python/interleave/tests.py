from solution import interleave


def test_example():
    assert interleave([1, 2, 3], ["x", "y"]) == [1, "x", 2, "y", 3]


def test_second_longer():
    assert interleave([1], [10, 20, 30]) == [1, 10, 20, 30]


def test_equal_lengths():
    assert interleave(["a", "b"], ["c", "d"]) == ["a", "c", "b", "d"]


def test_empty_lists():
    assert interleave([], []) == [] and interleave([], [5]) == [5]
