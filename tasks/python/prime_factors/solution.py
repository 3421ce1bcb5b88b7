def prime_factors(n: int) -> list[int]:
    if n < 1:
        raise ValueError("n must be a positive integer")
    factors = []
    divisor = 2
    while divisor * divisor <= n:
        while n % divisor == 0:
            factors.append(divisor)
            n //= divisor
        divisor += 1
    if n > 1:
        factors.append(n)
    return factors
