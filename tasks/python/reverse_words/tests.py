from solution import reverse_words


def test_simple():
    assert reverse_words("hello world") == "world hello"


def test_extra_spaces():
    assert reverse_words("  hello   big world ") == "world big hello"


def test_single_word():
    assert reverse_words("rust") == "rust" and reverse_words(" rust ") == "rust"


def test_empty():
    assert reverse_words("") == "" and reverse_words("a b") == "b a"


def test_tabs_and_newlines():
    assert reverse_words("a\tb\nc") == "c b a"
