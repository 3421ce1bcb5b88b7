import math


def simplify_fraction(numerator: int, denominator: int) -> tuple[int, int]:
    if denominator == 0:
        raise ValueError("denominator must not be zero")
    if denominator < 0:
        numerator, denominator = -numerator, -denominator
    common = math.gcd(numerator, denominator)
    return numerator // common, denominator // common
