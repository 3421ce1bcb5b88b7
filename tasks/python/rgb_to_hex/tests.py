from solution import rgb_to_hex


def _raises(*rgb):
    try:
        rgb_to_hex(*rgb)
    except ValueError:
        return True
    return False


def test_example():
    assert rgb_to_hex(255, 136, 0) == "#ff8800"


def test_zero_padding():
    assert rgb_to_hex(1, 2, 3) == "#010203"


def test_black():
    assert rgb_to_hex(0, 0, 0) == "#000000"


def test_too_large():
    assert _raises(256, 0, 0) and rgb_to_hex(255, 0, 0) == "#ff0000"


def test_negative():
    assert _raises(0, -1, 0) and rgb_to_hex(0, 1, 0) == "#000100"
