def max_subarray(numbers: list[int]) -> int:
    if not numbers:
        raise ValueError("need at least one number")
    best = current = numbers[0]
    for n in numbers[1:]:
        current = max(n, current + n)
        best = max(best, current)
    return best
