from solution import spiral_order


def test_square():
    assert spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]


def test_wide():
    assert spiral_order([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) == [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7]


def test_single_row_and_column():
    assert spiral_order([[1, 2, 3]]) == [1, 2, 3] and spiral_order([[1], [2], [3]]) == [1, 2, 3]


def test_tall():
    assert spiral_order([[1, 2], [3, 4], [5, 6]]) == [1, 2, 4, 6, 5, 3]


def test_empty():
    assert spiral_order([]) == [] and spiral_order([[1, 2], [3, 4]]) == [1, 2, 4, 3]
