from collections.abc import Iterable, Iterator


def running_total(numbers: Iterable[float]) -> Iterator[float]:
    total = 0
    for n in numbers:
        total += n
        yield total
