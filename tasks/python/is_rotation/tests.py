from solution import is_rotation


def test_rotation():
    assert is_rotation("rotation", "tionrota") is True and is_rotation("rotation", "tionrtoa") is False


def test_same_string():
    assert is_rotation("abc", "abc") is True and is_rotation("abc", "abd") is False


def test_same_letters_other_order():
    assert is_rotation("abc", "acb") is False and is_rotation("abc", "cab") is True


def test_different_lengths():
    assert is_rotation("ab", "aba") is False and is_rotation("aba", "aab") is True


def test_empty():
    assert is_rotation("", "") is True and is_rotation("", "a") is False
