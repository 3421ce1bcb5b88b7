from solution import is_sorted


def test_sorted():
    assert is_sorted([1, 2, 2, 5]) is True and is_sorted([1, 2, 2, 1]) is False


def test_unsorted():
    assert is_sorted([3, 1, 2]) is False and is_sorted([1, 2, 3]) is True


def test_only_last_pair_out_of_order():
    assert is_sorted([1, 2, 3, 4, 0]) is False and is_sorted([1, 2, 3, 4, 4]) is True


def test_empty_and_single():
    assert is_sorted([]) is True and is_sorted([9]) is True and is_sorted([9, 8]) is False


def test_strings():
    assert is_sorted(["apple", "banana", "cherry"]) is True and is_sorted(["banana", "apple"]) is False
