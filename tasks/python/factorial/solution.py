def factorial(n: int) -> int:
    if n < 0:
        raise ValueError("factorial is undefined for negative numbers")
    return 1 if n < 2 else n * factorial(n - 1)
