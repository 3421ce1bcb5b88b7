def moving_average(numbers: list[float], k: int) -> list[float]:
    if k < 1:
        raise ValueError("k must be at least 1")
    if len(numbers) < k:
        return []
    window = sum(numbers[:k])
    out = [window / k]
    for i in range(k, len(numbers)):
        window += numbers[i] - numbers[i - k]
        out.append(window / k)
    return out
