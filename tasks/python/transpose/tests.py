from solution import transpose


def test_rectangle():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_empty():
    assert transpose([]) == [] and transpose([[5]]) == [[5]] and transpose([[5, 6]]) == [[5], [6]]


def test_single_row():
    assert transpose([[1, 2]]) == [[1], [2]]


def test_ragged():
    assert transpose([[1, 2], [3, 4]]) == [[1, 3], [2, 4]]
    try:
        transpose([[1, 2], [3]])
    except ValueError:
        return
    raise AssertionError("expected ValueError")
