from collections.abc import Iterator


def primes() -> Iterator[int]:
    found: list[int] = []
    n = 2
    while True:
        if all(n % p for p in found if p * p <= n):
            found.append(n)
            yield n
        n += 1
