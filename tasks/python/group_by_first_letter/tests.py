from solution import group_by_first_letter


def test_example():
    result = group_by_first_letter(["apple", "Bob", "avocado", "banana"])
    assert result == {"a": ["apple", "avocado"], "b": ["Bob", "banana"]}


def test_key_order():
    assert list(group_by_first_letter(["zoo", "Ant", "zip", "moon"])) == ["z", "a", "m"]


def test_empty_strings_skipped():
    assert group_by_first_letter(["", "x", ""]) == {"x": ["x"]}


def test_empty():
    assert group_by_first_letter([]) == {} and group_by_first_letter(["Q"]) == {"q": ["Q"]}
