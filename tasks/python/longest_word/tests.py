from solution import longest_word


def test_example():
    assert longest_word("I enjoy writing small programs") == "programs"


def test_tie_returns_first():
    assert longest_word("cat dog emu") == "cat"


def test_newlines_separate_words():
    assert longest_word("ab\nabcd\tabc") == "abcd"


def test_no_words():
    assert longest_word("   ") == "" and longest_word(" a  ") == "a"
