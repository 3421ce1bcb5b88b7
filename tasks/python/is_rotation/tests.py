from solution import is_rotation


def test_rotation():
    assert is_rotation("rotation", "tionrota") is True


def test_same_string():
    assert is_rotation("abc", "abc") is True


def test_same_letters_other_order():
    assert is_rotation("abc", "acb") is False


def test_different_lengths():
    assert is_rotation("ab", "aba") is False


def test_empty():
    assert is_rotation("", "") is True
