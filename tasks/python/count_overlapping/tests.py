from solution import count_overlapping


def test_example():
    assert count_overlapping("aaaa", "aa") == 3


def test_overlapping_pattern():
    assert count_overlapping("abababa", "aba") == 3


def test_separate_matches():
    assert count_overlapping("xyz-xyz", "xyz") == 2


def test_no_match():
    assert count_overlapping("hello", "z") == 0 and count_overlapping("hello", "l") == 2


def test_sub_longer_than_text():
    assert count_overlapping("ab", "abc") == 0 and count_overlapping("abc", "abc") == 1
