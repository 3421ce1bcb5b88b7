def longest_increasing_run(numbers: list[int]) -> int:
    best = current = 0
    for i, n in enumerate(numbers):
        current = current + 1 if i and n > numbers[i - 1] else 1
        best = max(best, current)
    return best
