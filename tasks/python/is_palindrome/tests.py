from solution import is_palindrome


def test_sentence():
    assert is_palindrome("A man, a plan, a canal: Panama") is True


def test_not_palindrome():
    assert is_palindrome("rusty") is False


def test_empty():
    assert is_palindrome("") is True


def test_digits():
    assert is_palindrome("12-21") is True


def test_near_miss():
    assert is_palindrome("abca") is False
