from solution import hypotenuse


def test_three_four_five():
    assert abs(hypotenuse(3, 4) - 5) < 1e-9


def test_five_twelve_thirteen():
    assert abs(hypotenuse(5, 12) - 13) < 1e-9


def test_unit_sides():
    assert abs(hypotenuse(1, 1) - 2 ** 0.5) < 1e-9


def test_zero_side():
    assert abs(hypotenuse(0, 7) - 7) < 1e-9
