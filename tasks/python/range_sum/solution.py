def range_sum(start: int, stop: int) -> int:
    if start > stop:
        return 0
    return (start + stop) * (stop - start + 1) // 2
