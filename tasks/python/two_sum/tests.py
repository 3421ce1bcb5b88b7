from solution import two_sum


def test_example():
    assert two_sum([2, 7, 11, 15], 9) == (0, 1)


def test_none():
    assert two_sum([1, 2, 3], 100) is None and two_sum([1, 2, 3], 5) == (1, 2)


def test_same_value_twice():
    assert two_sum([3, 3], 6) == (0, 1)


def test_first_pair_by_j():
    assert two_sum([1, 4, 2, 3], 5) == (0, 1)


def test_large_input():
    numbers = list(range(200000))
    assert two_sum(numbers, 399997) == (199998, 199999)
