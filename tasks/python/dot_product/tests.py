from solution import dot_product


def test_example():
    assert dot_product([1, 2, 3], [4, 5, 6]) == 32


def test_negatives():
    assert dot_product([1, -1], [3, 3]) == 0 and dot_product([1, -1], [3, 2]) == 1


def test_empty():
    assert dot_product([], []) == 0 and dot_product([2], [3]) == 6


def test_length_mismatch_raises():
    assert dot_product([1, 2], [1, 2]) == 5
    try:
        dot_product([1, 2], [1, 2, 3])
    except ValueError:
        return
    raise AssertionError("lists of different lengths should raise ValueError")
