from solution import max_of_three


def test_largest_first():
    assert max_of_three(10, 2, 7) == 10 and max_of_three(2, 2, 7) == 7


def test_largest_middle():
    assert max_of_three(3, 9, 4) == 9


def test_largest_last():
    assert max_of_three(1, 2, 3) == 3


def test_all_negative():
    assert max_of_three(-8, -3, -5) == -3


def test_ties_and_floats():
    assert max_of_three(2.5, 2.5, 1) == 2.5 and max_of_three(1, 2.5, 2.5) == 2.5
