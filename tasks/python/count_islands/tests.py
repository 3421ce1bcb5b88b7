from solution import count_islands


def test_example():
    assert count_islands([["1", "1", "0"], ["0", "1", "0"], ["0", "0", "1"]]) == 2


def test_empty():
    assert count_islands([]) == 0 and count_islands([["0", "1"]]) == 1


def test_diagonal_is_separate():
    assert count_islands([["1", "0"], ["0", "1"]]) == 2


def test_input_untouched():
    grid = [["1", "0"], ["0", "1"]]
    assert count_islands(grid) == 2
    assert grid == [["1", "0"], ["0", "1"]]


def test_big_grid_single_island():
    grid = [["1"] * 200 for _ in range(200)]
    assert count_islands(grid) == 1
    grid[100] = ["0"] * 200  # a water row cuts it in two
    assert count_islands(grid) == 2
