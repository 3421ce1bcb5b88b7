from collections.abc import Iterator


def triangular_numbers() -> Iterator[int]:
    total = 0
    k = 1
    while True:
        total += k
        yield total
        k += 1
