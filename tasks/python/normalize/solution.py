def normalize(numbers: list[float]) -> list[float]:
    if not numbers:
        raise ValueError("cannot normalize an empty list")
    low, high = min(numbers), max(numbers)
    if low == high:
        raise ValueError("cannot normalize a list whose values are all equal")
    span = high - low
    return [(n - low) / span for n in numbers]
