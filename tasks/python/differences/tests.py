from solution import differences


def test_first_order():
    assert differences([1, 4, 9, 16]) == [3, 5, 7]


def test_second_order():
    assert differences([1, 4, 9, 16, 25], order=2) == [2, 2, 2]


def test_order_zero_is_a_copy():
    values = [5, 3]
    result = differences(values, order=0)
    assert result == [5, 3] and result is not values


def test_too_short():
    assert differences([7]) == [] and differences([1, 2], order=3) == [] and differences([1, 2], order=1) == [1]


def test_negative_order_raises():
    assert differences([1, 2, 4], order=2) == [1]
    try:
        differences([1, 2, 3], order=-1)
    except ValueError:
        return
    raise AssertionError("a negative order should raise ValueError")
