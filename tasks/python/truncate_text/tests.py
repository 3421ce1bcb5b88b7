from solution import truncate_text


def test_cut():
    assert truncate_text("Hello, world", 8) == "Hello..."


def test_short_unchanged():
    assert truncate_text("Hi", 10) == "Hi" and truncate_text("Hi there", 5) == "Hi..."


def test_exact_length_unchanged():
    assert truncate_text("abcdef", 6) == "abcdef" and truncate_text("abcdefg", 6) == "abc..."


def test_minimum_limit():
    assert truncate_text("abcdef", 3) == "..."
