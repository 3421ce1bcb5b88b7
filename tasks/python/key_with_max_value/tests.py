from solution import key_with_max_value


def test_tie_first_wins():
    assert key_with_max_value({"a": 3, "b": 7, "c": 7}) == "b"


def test_negative_values():
    assert key_with_max_value({"x": -5, "y": -2, "z": -9}) == "y"


def test_single():
    assert key_with_max_value({42: 0}) == 42


def test_empty():
    assert key_with_max_value({}) is None and key_with_max_value({"k": 0}) == "k"
