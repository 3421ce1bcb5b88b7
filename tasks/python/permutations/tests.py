from solution import permutations


def test_three():
    assert permutations([1, 2, 3]) == [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]]


def test_empty():
    assert permutations([]) == [[]]


def test_single():
    assert permutations(["a"]) == [["a"]]


def test_count():
    result = permutations(list(range(5)))
    assert type(result) is list and len(result) == 120
