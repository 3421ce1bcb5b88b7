def find_missing_number(numbers: list[int]) -> int:
    n = len(numbers)
    return n * (n + 1) // 2 - sum(numbers)
