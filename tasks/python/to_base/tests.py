from solution import to_base


def test_hexadecimal():
    assert to_base(255, 16) == "FF"


def test_binary():
    assert to_base(10, 2) == "1010"


def test_zero():
    assert to_base(0, 7) == "0"


def test_negative():
    assert to_base(-5, 2) == "-101"


def test_base_36():
    assert to_base(35, 36) == "Z" and to_base(36, 36) == "10"


def test_bad_base_raises():
    assert to_base(10, 3) == "101"
    try:
        to_base(10, 1)
    except ValueError:
        return
    raise AssertionError("base 1 should raise ValueError")
