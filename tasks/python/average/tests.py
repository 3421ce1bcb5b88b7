from solution import average


def test_example():
    assert average([1, 2, 3, 4]) == 2.5


def test_single_value():
    assert average([7]) == 7


def test_negatives_cancel():
    assert average([-5, 5, -1, 1]) == 0 and average([-5, 5, -1, 5]) == 1


def test_empty_raises():
    assert average([3, 4]) == 3.5  # only the empty list raises
    try:
        average([])
    except ValueError:
        return
    raise AssertionError("average([]) should raise ValueError")
