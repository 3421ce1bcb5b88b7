from solution import count_vowels


def test_mixed_case():
    assert count_vowels("Hello World") == 3


def test_none():
    assert count_vowels("rhythm") == 0 and count_vowels("rhythms and blues") == 3


def test_all_upper():
    assert count_vowels("AEIOU") == 5


def test_empty():
    assert count_vowels("") == 0 and count_vowels("e") == 1
