from solution import Rectangle


def test_attributes():
    r = Rectangle(3, 4)
    assert r.width == 3 and r.height == 4


def test_area():
    assert Rectangle(3, 4).area() == 12


def test_perimeter():
    assert Rectangle(3, 4).perimeter() == 14


def test_is_square():
    assert Rectangle(5, 5).is_square() is True and Rectangle(5, 6).is_square() is False


def test_negative_side_raises():
    try:
        Rectangle(-1, 2)
    except ValueError:
        return
    raise AssertionError("a negative width should raise ValueError")
