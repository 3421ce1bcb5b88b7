from solution import expand_ranges


def _raises(text):
    try:
        expand_ranges(text)
    except ValueError:
        return True
    return False


def test_example():
    assert expand_ranges("1-3, 5, 8-9") == [1, 2, 3, 5, 8, 9]


def test_single_numbers_keep_order():
    assert expand_ranges("10,2,7") == [10, 2, 7]


def test_one_number_range():
    assert expand_ranges("4-4") == [4]


def test_empty():
    assert expand_ranges("") == [] and expand_ranges("0") == [0]


def test_backwards_range():
    assert _raises("5-3") and expand_ranges("3-5") == [3, 4, 5]


def test_malformed():
    assert _raises("1-") and _raises("1,,2") and _raises("a") and expand_ranges("1,2") == [1, 2]
