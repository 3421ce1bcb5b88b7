from solution import longest_common_prefix


def test_example():
    assert longest_common_prefix(["interview", "internet", "interval"]) == "inter"


def test_nothing_shared():
    assert longest_common_prefix(["apple", "banana"]) == "" and longest_common_prefix(["apple", "apply"]) == "appl"


def test_one_word():
    assert longest_common_prefix(["solo"]) == "solo"


def test_whole_word_is_prefix():
    assert longest_common_prefix(["car", "carpet", "cart"]) == "car"


def test_empty_list():
    assert longest_common_prefix([]) == "" and longest_common_prefix(["", "a"]) == "" and longest_common_prefix(["ab"]) == "ab"
