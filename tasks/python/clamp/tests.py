from solution import clamp


def test_inside_range():
    assert clamp(4, 0, 10) == 4 and clamp(4, 5, 10) == 5


def test_below_range():
    assert clamp(-3, 0, 10) == 0 and clamp(-3, -2, 10) == -2


def test_above_range():
    assert clamp(15, 0, 10) == 10


def test_on_the_bounds():
    assert clamp(0, 0, 10) == 0 and clamp(10, 0, 10) == 10 and clamp(11, 0, 10) == 10


def test_floats():
    assert clamp(1.75, 0.5, 1.5) == 1.5
