from solution import rotate_list


def test_right():
    assert rotate_list([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]


def test_large_k():
    assert rotate_list([1, 2, 3], 7) == [3, 1, 2]


def test_left():
    assert rotate_list([1, 2, 3], -1) == [2, 3, 1]


def test_empty():
    assert rotate_list([], 3) == [] and rotate_list([1, 2], 3) == [2, 1]


def test_zero_returns_copy():
    items = [1, 2]
    out = rotate_list(items, 0)
    assert out == [1, 2] and out is not items
