from solution import reverse_list


def test_example():
    assert reverse_list([1, 2, 3]) == [3, 2, 1]


def test_empty():
    assert reverse_list([]) == [] and reverse_list([[1, 2]]) == [[1, 2]] and reverse_list([1, 2]) == [2, 1]


def test_mixed_items():
    assert reverse_list(["a", None, 2.5]) == [2.5, None, "a"]


def test_input_unchanged():
    items = [1, 2, 3]
    assert reverse_list(items) == [3, 2, 1]
    assert items == [1, 2, 3]
