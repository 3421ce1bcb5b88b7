from solution import flatten


def test_deep():
    assert flatten([1, [2, [3, [4]]], "ab"]) == [1, 2, 3, 4, "ab"]


def test_empty_lists():
    assert flatten([[], [[]], []]) == [] and flatten([[], [[0]], []]) == [0]


def test_already_flat():
    assert flatten([1, 2, 3]) == [1, 2, 3] and flatten([[1], 2, [[3]]]) == [1, 2, 3]


def test_tuples_kept():
    assert flatten([(1, 2), [3]]) == [(1, 2), 3]
