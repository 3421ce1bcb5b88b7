from solution import subsets


def test_three():
    assert subsets([1, 2, 3]) == [[], [1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]


def test_empty():
    assert subsets([]) == [[]]


def test_count():
    assert len(subsets(list("abcde"))) == 32
