from solution import most_common_char


def test_example():
    assert most_common_char("hello world") == "l"


def test_spaces_not_counted():
    assert most_common_char("a   b b") == "b"


def test_tie_first_occurrence():
    assert most_common_char("baab") == "b"


def test_case_sensitive():
    assert most_common_char("aAA") == "A"


def test_nothing_to_count():
    assert most_common_char("   ") == "" and most_common_char("  x ") == "x"
