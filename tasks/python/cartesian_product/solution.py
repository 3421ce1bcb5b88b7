from collections.abc import Iterator


def cartesian_product(*sequences) -> Iterator[tuple]:
    if not sequences:
        yield ()
        return
    first, rest = sequences[0], sequences[1:]
    for item in first:
        for tail in cartesian_product(*rest):
            yield (item, *tail)
