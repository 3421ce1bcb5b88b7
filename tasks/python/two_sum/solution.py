def two_sum(numbers: list[int], target: int) -> tuple[int, int] | None:
    seen: dict[int, int] = {}
    for j, n in enumerate(numbers):
        if target - n in seen:
            return seen[target - n], j
        seen.setdefault(n, j)
    return None
