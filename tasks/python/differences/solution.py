def differences(values: list[int], order: int = 1) -> list[int]:
    if order < 0:
        raise ValueError("order must not be negative")
    result = list(values)
    for _ in range(order):
        result = [b - a for a, b in zip(result, result[1:])]
    return result
