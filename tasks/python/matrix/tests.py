from solution import Matrix

# Results are judged on plain values (`rows`, `shape`); the matrix's own == is judged both ways.


def _raises_value_error(action):
    try:
        action()
    except ValueError:
        return True
    return False


def test_rows_shape_and_copy():
    source = [[1, 2, 3], [4, 5, 6]]
    m = Matrix(source)
    source[0][0] = 99
    assert m.rows == [[1, 2, 3], [4, 5, 6]] and m.shape == (2, 3)


def test_bad_rows_raise():
    assert _raises_value_error(lambda: Matrix([[1, 2], [3]]))
    assert _raises_value_error(lambda: Matrix([]))


def test_add():
    total = Matrix([[1, 2], [3, 4]]) + Matrix([[10, 20], [30, 40]])
    assert total.rows == [[11, 22], [33, 44]] and total.shape == (2, 2)
    assert _raises_value_error(lambda: Matrix([[1, 2]]) + Matrix([[1], [2]]))


def test_matmul():
    product = Matrix([[1, 2, 3], [4, 5, 6]]) @ Matrix([[7, 8], [9, 10], [11, 12]])
    assert product.rows == [[58, 64], [139, 154]]
    assert _raises_value_error(lambda: Matrix([[1, 2]]) @ Matrix([[1, 2]]))


def test_transpose():
    flipped = Matrix([[1, 2, 3], [4, 5, 6]]).transpose()
    assert flipped.rows == [[1, 4], [2, 5], [3, 6]] and flipped.shape == (3, 2)


def test_equality_compares_shape_and_numbers():
    assert (Matrix([[1, 2], [3, 4]]) == Matrix([[1, 2], [3, 4]])) is True
    assert (Matrix([[1, 2], [3, 4]]) == Matrix([[1, 2], [3, 5]])) is False
    assert (Matrix([[1, 2]]) == Matrix([[1], [2]])) is False


def test_identity():
    m = Matrix([[2, 3], [5, 7]])
    assert (Matrix.identity(2) @ m).rows == [[2, 3], [5, 7]] and Matrix.identity(3).rows == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
