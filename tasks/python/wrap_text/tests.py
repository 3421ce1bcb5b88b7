from solution import wrap_text


def test_example():
    assert wrap_text("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_exact_fit():
    assert wrap_text("ab cd ef", 5) == ["ab cd", "ef"]


def test_long_word_alone():
    assert wrap_text("a extraordinary b", 5) == ["a", "extraordinary", "b"]


def test_whitespace_collapsed():
    assert wrap_text("  one\n\ntwo   three ", 80) == ["one two three"]


def test_no_words():
    assert wrap_text("   ", 10) == [] and wrap_text(" a ", 10) == ["a"]
