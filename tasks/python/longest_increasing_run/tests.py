from solution import longest_increasing_run


def test_example():
    assert longest_increasing_run([1, 3, 5, 4, 7]) == 3


def test_empty():
    assert longest_increasing_run([]) == 0 and longest_increasing_run([1, 2]) == 2


def test_equal_items_break_runs():
    assert longest_increasing_run([2, 2, 2]) == 1 and longest_increasing_run([2, 2, 3]) == 2


def test_run_at_the_end():
    assert longest_increasing_run([5, 1, 2, 3, 4]) == 4


def test_whole_list():
    assert longest_increasing_run(list(range(50))) == 50
