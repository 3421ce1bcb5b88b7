def median(numbers: list[float]) -> float:
    if not numbers:
        raise ValueError("median of an empty list")
    ordered = sorted(numbers)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
