import itertools


def run_length_encode(text: str) -> str:
    return "".join(f"{len(list(group))}{char}" for char, group in itertools.groupby(text))
