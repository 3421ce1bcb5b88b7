import itertools

from solution import triangular_numbers


def test_first_five():
    assert list(itertools.islice(triangular_numbers(), 5)) == [1, 3, 6, 10, 15]


def test_hundredth():
    assert list(itertools.islice(triangular_numbers(), 100))[-1] == 5050


def test_next_works():
    gen = triangular_numbers()
    assert next(gen) == 1 and next(gen) == 3


def test_fresh_generators_are_independent():
    a, b = triangular_numbers(), triangular_numbers()
    next(a)
    next(a)
    assert next(b) == 1
