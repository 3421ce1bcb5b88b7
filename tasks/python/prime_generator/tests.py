import itertools

from solution import primes


def test_first_ten():
    assert list(itertools.islice(primes(), 10)) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


def test_two_thousandth():
    assert list(itertools.islice(primes(), 2000))[-1] == 17389


def test_fresh_generators_are_independent():
    a, b = primes(), primes()
    next(a)
    assert next(b) == 2
