from solution import find_missing_number


def test_example():
    assert find_missing_number([3, 0, 1]) == 2


def test_zero_missing():
    assert find_missing_number([2, 1]) == 0 and find_missing_number([2, 0]) == 1


def test_largest_missing():
    assert find_missing_number([0, 1, 2]) == 3


def test_empty_list():
    assert find_missing_number([]) == 0 and find_missing_number([0]) == 1


def test_longer_shuffled():
    numbers = [n for n in range(1001) if n != 617]
    numbers = numbers[500:] + numbers[:500]
    assert find_missing_number(numbers) == 617
