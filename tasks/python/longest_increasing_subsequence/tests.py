from solution import longest_increasing_subsequence


def test_example():
    assert longest_increasing_subsequence([5, 1, 6, 2, 7, 3, 8]) == 4


def test_empty():
    assert longest_increasing_subsequence([]) == 0 and longest_increasing_subsequence([2, 3]) == 2


def test_decreasing():
    assert longest_increasing_subsequence([9, 7, 4, 1]) == 1 and longest_increasing_subsequence([9, 7, 8, 1]) == 2


def test_equal_items_do_not_count():
    assert longest_increasing_subsequence([3, 3, 3, 4]) == 2


def test_longer_list():
    numbers = [(i * 37) % 50 for i in range(500)]
    assert longest_increasing_subsequence(numbers) == 24
