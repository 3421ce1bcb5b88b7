from solution import min_coins


def test_example_beats_greedy():
    assert min_coins([1, 5, 12], 16) == 4


def test_impossible():
    assert min_coins([4, 6], 7) == -1 and min_coins([4, 6], 10) == 2


def test_zero_amount():
    assert min_coins([3], 0) == 0 and min_coins([3], 3) == 1


def test_single_coin_exact():
    assert min_coins([7], 21) == 3


def test_larger_amount():
    assert min_coins([1, 2, 5], 1000) == 200
