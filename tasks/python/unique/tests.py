from solution import unique


def test_example():
    assert unique([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_empty():
    assert unique([]) == [] and unique([0, 0]) == [0]


def test_strings():
    assert unique(list("banana")) == ["b", "a", "n"]
