from solution import gray_code


def test_zero_bits():
    assert gray_code(0) == [0]


def test_two_bits():
    assert gray_code(2) == [0, 1, 3, 2]


def test_three_bits():
    assert gray_code(3) == [0, 1, 3, 2, 6, 7, 5, 4]


def test_eight_bits_properties():
    code = gray_code(8)
    assert type(code) is list and len(code) == 256 and sorted(code) == list(range(256))
    assert all(bin(a ^ b).count("1") == 1 for a, b in zip(code, code[1:]))


def test_negative_raises():
    assert gray_code(1) == [0, 1]
    try:
        gray_code(-1)
    except ValueError:
        return
    raise AssertionError("a negative n should raise ValueError")
