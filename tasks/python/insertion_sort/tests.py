from solution import insertion_sort


def test_example():
    assert insertion_sort([5, 2, 9, 1]) == [1, 2, 5, 9]


def test_duplicates_and_negatives():
    assert insertion_sort([3, -1, 3, 0, -1]) == [-1, -1, 0, 3, 3]


def test_empty_and_single():
    assert insertion_sort([]) == [] and insertion_sort([4]) == [4] and insertion_sort([4, 3]) == [3, 4]


def test_input_unchanged():
    items = [3, 1, 2]
    assert insertion_sort(items) == [1, 2, 3]
    assert items == [3, 1, 2]


def test_matches_builtin():
    items = [(i * 37) % 101 for i in range(200)]
    assert insertion_sort(items) == sorted(items)
