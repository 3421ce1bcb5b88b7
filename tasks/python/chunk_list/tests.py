from solution import chunk_list


def test_uneven():
    assert chunk_list([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]


def test_even():
    assert chunk_list([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_empty():
    assert chunk_list([], 3) == [] and chunk_list([9], 3) == [[9]]


def test_bad_size():
    assert chunk_list([1], 1) == [[1]]
    try:
        chunk_list([1], 0)
    except ValueError:
        return
    raise AssertionError("expected ValueError")
