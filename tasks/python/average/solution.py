def average(numbers: list[float]) -> float:
    if not numbers:
        raise ValueError("average of an empty list")
    return sum(numbers) / len(numbers)
