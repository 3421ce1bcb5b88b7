from solution import subsets


def test_three():
    assert subsets([1, 2, 3]) == [[], [1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]


def test_empty():
    assert subsets([]) == [[]]


def test_count():
    result = subsets(list("abcde"))
    assert type(result) is list and len(result) == 32
