from solution import run_length_decode


def _raises(text):
    try:
        run_length_decode(text)
    except ValueError:
        return True
    return False


def test_example():
    assert run_length_decode("3a1b12c") == "aaab" + "c" * 12


def test_empty():
    assert run_length_decode("") == "" and run_length_decode("1a") == "a"


def test_missing_count():
    assert _raises("3ab") and run_length_decode("3a1b") == "aaab"


def test_trailing_count():
    assert _raises("2a5") and run_length_decode("2a5b") == "aabbbbb"
