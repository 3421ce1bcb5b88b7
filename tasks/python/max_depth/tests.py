from solution import max_depth


def test_example():
    assert max_depth([1, [2, [3]], 4]) == 3


def test_flat_and_empty():
    assert max_depth([1, 2, 3]) == 1 and max_depth([]) == 1 and max_depth([[]]) == 2


def test_not_a_list():
    assert max_depth(5) == 0 and max_depth("abc") == 0 and max_depth(["abc"]) == 1


def test_nested_empty_lists():
    assert max_depth([[[]]]) == 3


def test_deepest_branch_wins():
    assert max_depth([[1], [[2, [3]]], 4]) == 4
