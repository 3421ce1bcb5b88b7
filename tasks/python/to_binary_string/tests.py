from solution import to_binary_string


def test_padded():
    assert to_binary_string(5, 8) == "00000101"


def test_zero():
    assert to_binary_string(0, 1) == "0"


def test_wider_than_width():
    assert to_binary_string(300, 4) == "100101100"


def test_width_zero():
    assert to_binary_string(6, 0) == "110"
