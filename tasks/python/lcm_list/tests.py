from solution import lcm_list


def test_example():
    assert lcm_list([4, 6, 10]) == 60


def test_single():
    assert lcm_list([7]) == 7


def test_coprime():
    assert lcm_list([3, 5, 7]) == 105


def test_empty_raises():
    assert lcm_list([2, 3]) == 6
    try:
        lcm_list([])
    except ValueError:
        return
    raise AssertionError("expected ValueError")
