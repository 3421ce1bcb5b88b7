import math


def hypotenuse(a: float, b: float) -> float:
    return math.hypot(a, b)
