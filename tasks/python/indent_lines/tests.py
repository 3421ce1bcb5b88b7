from solution import indent_lines


def test_example():
    assert indent_lines("a\n\nb", 2) == "  a\n\n  b"


def test_single_line():
    assert indent_lines("x = 1", 4) == "    x = 1"


def test_trailing_newline():
    assert indent_lines("a\n", 1) == " a\n"


def test_zero_spaces():
    assert indent_lines("a\nb", 0) == "a\nb" and indent_lines("a\nb", 1) == " a\n b"
