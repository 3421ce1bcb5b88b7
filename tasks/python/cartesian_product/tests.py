from solution import cartesian_product


def test_example():
    assert list(cartesian_product([1, 2], "ab")) == [(1, "a"), (1, "b"), (2, "a"), (2, "b")]


def test_three_sequences():
    result = list(cartesian_product([0, 1], [0, 1], [0, 1, 2]))
    assert len(result) == 12 and result[0] == (0, 0, 0) and result[-1] == (1, 1, 2)


def test_no_sequences():
    assert list(cartesian_product()) == [()]


def test_empty_sequence():
    assert list(cartesian_product([1, 2], [])) == [] and list(cartesian_product([1, 2])) == [(1,), (2,)]


def test_lazy():
    gen = cartesian_product(range(1000), range(1000), range(1000), range(1000))
    assert next(gen) == (0, 0, 0, 0) and next(gen) == (0, 0, 0, 1)
