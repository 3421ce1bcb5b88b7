from solution import Vector2D


def test_add_sub():
    assert Vector2D(1, 2) + Vector2D(3, 4) == Vector2D(4, 6)
    assert Vector2D(1, 2) - Vector2D(3, 4) == Vector2D(-2, -2)
    total = Vector2D(1, 2) + Vector2D(3, 5)
    assert (total.x, total.y) == (4, 7)


def test_scale_both_sides():
    assert Vector2D(1, 2) * 3 == Vector2D(3, 6) == 3 * Vector2D(1, 2)
    assert (3 * Vector2D(1, 2)).y == 6 and (Vector2D(1, 2) * 3).x == 3


def test_length():
    assert abs(Vector2D(3, 4)) == 5


def test_hashable():
    assert {Vector2D(1, 1): "a"}[Vector2D(1, 1)] == "a"
    assert len({Vector2D(1, 1), Vector2D(1, 1), Vector2D(1, 2)}) == 2


def test_repr():
    assert repr(Vector2D(1, 2)) == "Vector2D(1, 2)"
