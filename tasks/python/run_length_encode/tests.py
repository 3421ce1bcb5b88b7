from solution import run_length_encode


def test_example():
    assert run_length_encode("aaabccdddd") == "3a1b2c4d"


def test_empty():
    assert run_length_encode("") == "" and run_length_encode("a") == "1a"


def test_no_repeats():
    assert run_length_encode("abc") == "1a1b1c"


def test_long_run():
    assert run_length_encode("z" * 12) == "12z"
