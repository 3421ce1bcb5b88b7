from solution import max_subarray


def test_example():
    assert max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]) == 6


def test_all_negative():
    assert max_subarray([-3, -1, -2]) == -1 and max_subarray([-3, -2]) == -2


def test_all_positive():
    assert max_subarray([1, 2, 3]) == 6


def test_empty():
    assert max_subarray([0]) == 0 and max_subarray([5]) == 5
    try:
        max_subarray([])
    except ValueError:
        return
    raise AssertionError("expected ValueError")
