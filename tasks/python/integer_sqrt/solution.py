def integer_sqrt(n: int) -> int:
    if n < 0:
        raise ValueError("square root of a negative number")
    low, high = 0, n + 1  # low * low <= n < high * high
    while high - low > 1:
        middle = (low + high) // 2
        if middle * middle <= n:
            low = middle
        else:
            high = middle
    return low
