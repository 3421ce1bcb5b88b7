from solution import strip_punctuation


def test_example():
    assert strip_punctuation("Hello, world! (again)") == "Hello world again"


def test_no_punctuation():
    assert strip_punctuation("plain text 42") == "plain text 42" and strip_punctuation("plain-text 42") == "plaintext 42"


def test_only_punctuation():
    assert strip_punctuation("?!.,;:'\"-") == "" and strip_punctuation("?!.,;:'a\"-") == "a"


def test_empty():
    assert strip_punctuation("") == "" and strip_punctuation("a.") == "a"
