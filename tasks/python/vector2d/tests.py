from solution import Vector2D

# Results are judged on plain values (the coordinates); the vector's own == is judged both ways.


def _xy(v):
    return (v.x, v.y)


def test_add_sub():
    assert _xy(Vector2D(1, 2) + Vector2D(3, 5)) == (4, 7)
    assert _xy(Vector2D(1, 2) - Vector2D(3, 5)) == (-2, -3)


def test_scale_both_sides():
    assert _xy(Vector2D(1, 2) * 3) == (3, 6) and _xy(3 * Vector2D(1, -2)) == (3, -6)


def test_equality_compares_coordinates():
    assert (Vector2D(1, 2) == Vector2D(1, 2)) is True
    assert (Vector2D(1, 2) == Vector2D(2, 1)) is False


def test_length():
    assert abs(Vector2D(3, 4)) == 5


def test_hashable():
    assert {Vector2D(1, 1): "a"}[Vector2D(1, 1)] == "a"
    assert len({Vector2D(1, 1), Vector2D(1, 1), Vector2D(1, 2)}) == 2


def test_repr():
    assert repr(Vector2D(1, 2)) == "Vector2D(1, 2)"
