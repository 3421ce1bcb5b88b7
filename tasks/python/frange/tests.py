from solution import frange


def test_example():
    assert list(frange(0, 1, 0.25)) == [0.0, 0.25, 0.5, 0.75]


def test_negative_step():
    assert list(frange(1, 0, -0.5)) == [1.0, 0.5]


def test_empty_when_start_past_stop():
    assert list(frange(2, 1, 0.5)) == [] and list(frange(1, 2, 0.5)) == [1.0, 1.5]


def test_no_accumulated_rounding():
    assert len(list(frange(0, 1, 0.1))) == 10


def test_zero_step_raises():
    assert list(frange(0, 1, 0.5)) == [0.0, 0.5]
    try:
        list(frange(0, 1, 0))
    except ValueError:
        return
    raise AssertionError("a zero step should raise ValueError")
