from solution import majority_element


def test_example():
    assert majority_element([3, 1, 3, 3, 2]) == 3


def test_single_item():
    assert majority_element([7]) == 7


def test_strings():
    assert majority_element(["b", "a", "b"]) == "b"


def test_no_majority():
    assert majority_element([1, 2, 3]) is None and majority_element([1, 2, 2]) == 2


def test_exactly_half_is_not_majority():
    assert majority_element([1, 1, 2, 2]) is None and majority_element([]) is None
    assert majority_element([1, 2, 2, 2]) == 2
