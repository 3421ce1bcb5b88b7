from solution import group_anagrams


def test_example():
    words = ["eat", "tea", "tan", "ate", "nat", "bat"]
    assert group_anagrams(words) == [["eat", "tea", "ate"], ["tan", "nat"], ["bat"]]


def test_empty():
    assert group_anagrams([]) == [] and group_anagrams(["x"]) == [["x"]]


def test_duplicates_kept():
    assert group_anagrams(["ab", "ba", "ab"]) == [["ab", "ba", "ab"]]


def test_no_anagrams():
    assert group_anagrams(["a", "b"]) == [["a"], ["b"]]
