from collections.abc import Iterator


def frange(start: float, stop: float, step: float = 1.0) -> Iterator[float]:
    if step == 0:
        raise ValueError("step must not be zero")
    i = 0
    while True:
        value = start + i * step
        if (step > 0 and value >= stop) or (step < 0 and value <= stop):
            return
        yield value
        i += 1
