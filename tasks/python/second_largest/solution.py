def second_largest(numbers: list[int]) -> int:
    distinct = sorted(set(numbers))
    if len(distinct) < 2:
        raise ValueError("need at least two distinct values")
    return distinct[-2]
