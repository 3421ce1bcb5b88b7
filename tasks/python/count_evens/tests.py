from solution import count_evens


def test_example():
    assert count_evens([1, 2, 3, 4, 6]) == 3


def test_empty():
    assert count_evens([]) == 0 and count_evens([2]) == 1


def test_no_evens():
    assert count_evens([1, 3, 5, 7]) == 0 and count_evens([1, 3, 5, 8]) == 1


def test_zero_and_negatives():
    assert count_evens([0, -2, -3, -4]) == 3
