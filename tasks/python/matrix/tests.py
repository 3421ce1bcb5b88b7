from solution import Matrix


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
    assert total == Matrix([[11, 22], [33, 44]]) and total.rows == [[11, 22], [33, 44]]
    assert _raises_value_error(lambda: Matrix([[1, 2]]) + Matrix([[1], [2]]))


def test_matmul():
    product = Matrix([[1, 2, 3], [4, 5, 6]]) @ Matrix([[7, 8], [9, 10], [11, 12]])
    assert product.rows == [[58, 64], [139, 154]]
    assert _raises_value_error(lambda: Matrix([[1, 2]]) @ Matrix([[1, 2]]))


def test_transpose():
    assert Matrix([[1, 2, 3], [4, 5, 6]]).transpose() == Matrix([[1, 4], [2, 5], [3, 6]])
    assert Matrix([[1, 2, 3], [4, 5, 6]]).transpose().rows == [[1, 4], [2, 5], [3, 6]]


def test_identity():
    m = Matrix([[2, 3], [5, 7]])
    assert Matrix.identity(2) @ m == m and Matrix.identity(3).rows == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
