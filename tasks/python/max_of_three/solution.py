def max_of_three(a: float, b: float, c: float) -> float:
    return max(a, b, c)
