from solution import is_palindrome


def test_sentence():
    assert is_palindrome("A man, a plan, a canal: Panama") is True
    assert is_palindrome("A man, a plan, a canal: Panamas") is False


def test_not_palindrome():
    assert is_palindrome("rusty") is False and is_palindrome("rustsur") is True


def test_empty():
    assert is_palindrome("") is True and is_palindrome("ab") is False


def test_digits():
    assert is_palindrome("12-21") is True and is_palindrome("12-12") is False


def test_near_miss():
    assert is_palindrome("abca") is False and is_palindrome("abba") is True
