from solution import count_words


def test_example():
    assert count_words("Hello,  world!\nBye") == 3


def test_empty():
    assert count_words("") == 0 and count_words("a b") == 2


def test_only_whitespace():
    assert count_words(" \t\n ") == 0 and count_words(" \t.\n- ") == 2


def test_single_word():
    assert count_words("word") == 1 and count_words("two words") == 2
