from solution import binary_search


def test_found():
    assert binary_search([1, 3, 5, 7], 5) == 2


def test_missing():
    assert binary_search([1, 3, 5, 7], 4) == -1 and binary_search([1, 3, 5, 7], 7) == 3


def test_empty():
    assert binary_search([], 1) == -1 and binary_search([1], 1) == 0


def test_ends():
    items = list(range(0, 100, 2))
    assert binary_search(items, 0) == 0 and binary_search(items, 98) == 49
