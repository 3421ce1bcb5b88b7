from solution import median


def test_odd_length():
    assert median([5, 1, 3]) == 3


def test_even_length():
    assert median([4, 1, 3, 2]) == 2.5


def test_single():
    assert median([-7]) == -7


def test_input_unchanged():
    numbers = [3, 1, 2]
    assert median(numbers) == 2
    assert numbers == [3, 1, 2]


def test_empty_raises():
    assert median([8]) == 8
    try:
        median([])
    except ValueError:
        return
    raise AssertionError("median([]) should raise ValueError")
