import math


def product_list(numbers: list[float]) -> float:
    return math.prod(numbers)
