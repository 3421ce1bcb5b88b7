from solution import count_inversions


def test_example():
    assert count_inversions([3, 1, 2]) == 2


def test_sorted_has_none():
    assert count_inversions([1, 2, 3, 4]) == 0 and count_inversions([]) == 0 and count_inversions([1, 2, 4, 3]) == 1


def test_reversed():
    assert count_inversions([5, 4, 3, 2, 1]) == 10


def test_equal_items_are_not_inversions():
    assert count_inversions([2, 2, 1]) == 2


def test_large_input():
    items = [(i * 7919) % 50021 for i in range(50000)]
    assert count_inversions(items) == 624860001
