from solution import second_largest


def test_example():
    assert second_largest([4, 1, 4, 3]) == 3


def test_negatives():
    assert second_largest([-7, -2, -5]) == -5


def test_two_values():
    assert second_largest([10, 20]) == 10


def test_all_equal_raises():
    assert second_largest([5, 5, 6]) == 5
    try:
        second_largest([5, 5, 5])
    except ValueError:
        return
    raise AssertionError("a single distinct value should raise ValueError")


def test_empty_raises():
    assert second_largest([1, 0]) == 0
    try:
        second_largest([])
    except ValueError:
        return
    raise AssertionError("an empty list should raise ValueError")
