from solution import collapse_whitespace


def test_mixed_whitespace():
    assert collapse_whitespace("  a \t b\n\nc ") == "a b c"


def test_only_whitespace():
    assert collapse_whitespace(" \n\t ") == "" and collapse_whitespace(" \n.\t ") == "."


def test_already_clean():
    assert collapse_whitespace("one two") == "one two" and collapse_whitespace("one  two") == "one two"


def test_empty():
    assert collapse_whitespace("") == "" and collapse_whitespace("x ") == "x"
