from solution import decode_binary


def _raises(bits):
    try:
        decode_binary(bits)
    except ValueError:
        return True
    return False


def test_example():
    assert decode_binary("01001000 01101001") == "Hi"


def test_space_character():
    assert decode_binary("01100001 00100000 01100010") == "a b"


def test_empty():
    assert decode_binary("") == "" and decode_binary("00100001") == "!"


def test_wrong_length():
    assert _raises("0100100 01101001") and not _raises("01001000 01101001")


def test_bad_character():
    assert _raises("0100100a") and decode_binary("01000001") == "A"
