from solution import merge_intervals


def test_example():
    assert merge_intervals([(8, 10), (1, 3), (2, 6)]) == [(1, 6), (8, 10)]


def test_touching():
    assert merge_intervals([(1, 2), (2, 3)]) == [(1, 3)]


def test_contained():
    assert merge_intervals([(1, 10), (2, 3)]) == [(1, 10)]


def test_empty():
    assert merge_intervals([]) == [] and merge_intervals([(3, 4), (1, 2)]) == [(1, 2), (3, 4)]
