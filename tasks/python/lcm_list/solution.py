import math


def lcm_list(numbers: list[int]) -> int:
    if not numbers:
        raise ValueError("need at least one number")
    result = 1
    for n in numbers:
        result = result * n // math.gcd(result, n)
    return result
