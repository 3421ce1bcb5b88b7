from solution import initials


def test_two_words():
    assert initials("ada lovelace") == "A.L."


def test_four_words():
    assert initials("john Ronald reuel tolkien") == "J.R.R.T."


def test_extra_whitespace():
    assert initials("  grace \t hopper ") == "G.H."


def test_empty():
    assert initials("") == "" and initials("x") == "X."
