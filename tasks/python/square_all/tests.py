from solution import square_all


def test_example():
    assert square_all([1, -2, 3]) == [1, 4, 9]


def test_empty():
    assert square_all([]) == [] and square_all([-1]) == [1]


def test_floats():
    assert square_all([0.5, 1.5]) == [0.25, 2.25]


def test_input_unchanged():
    numbers = [2, 3]
    assert square_all(numbers) == [4, 9]
    assert numbers == [2, 3]
