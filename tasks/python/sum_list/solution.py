def sum_list(numbers: list[float]) -> float:
    total = 0
    for n in numbers:
        total += n
    return total
