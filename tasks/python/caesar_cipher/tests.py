from solution import caesar_cipher


def test_example():
    assert caesar_cipher("Hello, World!", 3) == "Khoor, Zruog!"


def test_wraps():
    assert caesar_cipher("xyz", 3) == "abc"


def test_negative():
    assert caesar_cipher("abc", -1) == "zab"


def test_round_trip():
    assert caesar_cipher(caesar_cipher("Rusty 4", 55), -55) == "Rusty 4"
    assert caesar_cipher("Rusty 4", 55) == "Uxvwb 4"
