import itertools


def take(iterable, n: int) -> list:
    if n < 0:
        raise ValueError("n must not be negative")
    return list(itertools.islice(iterable, n))
