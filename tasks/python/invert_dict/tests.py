from solution import invert_dict


def test_example():
    assert invert_dict({"a": 1, "b": 2, "c": 1}) == {1: ["a", "c"], 2: ["b"]}


def test_empty():
    assert invert_dict({}) == {} and invert_dict({"k": 1}) == {1: ["k"]}


def test_keys_sorted():
    assert invert_dict({"z": 0, "m": 0, "a": 0}) == {0: ["a", "m", "z"]}
