from solution import grid_paths


def test_example():
    assert grid_paths([[0, 0, 0], [0, 1, 0], [0, 0, 0]]) == 2


def test_open_grid():
    assert grid_paths([[0] * 3 for _ in range(3)]) == 6


def test_blocked_corner():
    assert grid_paths([[1, 0], [0, 0]]) == 0 and grid_paths([[0, 0], [0, 1]]) == 0
    assert grid_paths([[0, 1], [0, 0]]) == 1


def test_single_cell_and_empty():
    assert grid_paths([[0]]) == 1 and grid_paths([]) == 0


def test_large_open_grid():
    assert grid_paths([[0] * 18 for _ in range(18)]) == 2333606220
