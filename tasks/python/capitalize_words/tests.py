from solution import capitalize_words


def test_example():
    assert capitalize_words("hello wORLD") == "Hello World"


def test_empty():
    assert capitalize_words("") == "" and capitalize_words("x") == "X"


def test_spaces_kept():
    assert capitalize_words("a  b ") == "A  B "


def test_word_starting_with_digit():
    assert capitalize_words("3RD place") == "3rd Place"
