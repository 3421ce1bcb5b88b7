from solution import merge_sorted


def test_example():
    assert merge_sorted([1, 4, 7], [2, 3, 9]) == [1, 2, 3, 4, 7, 9]


def test_one_empty():
    assert merge_sorted([], [1, 2]) == [1, 2] and merge_sorted([3], []) == [3]


def test_duplicates_across_lists():
    assert merge_sorted([1, 2, 2], [2, 3]) == [1, 2, 2, 2, 3]


def test_one_list_entirely_first():
    assert merge_sorted([5, 6], [1, 2]) == [1, 2, 5, 6]


def test_inputs_unchanged():
    a, b = [1, 3], [2]
    assert merge_sorted(a, b) == [1, 2, 3]
    assert a == [1, 3] and b == [2]
