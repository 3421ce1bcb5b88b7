from solution import count_words


def test_example():
    assert count_words("Hello,  world!\nBye") == 3


def test_empty():
    assert count_words("") == 0


def test_only_whitespace():
    assert count_words(" \t\n ") == 0


def test_single_word():
    assert count_words("word") == 1
