def gray_code(n: int) -> list[int]:
    if n < 0:
        raise ValueError("n must not be negative")
    if n == 0:
        return [0]
    shorter = gray_code(n - 1)
    high_bit = 1 << (n - 1)
    return shorter + [code | high_bit for code in reversed(shorter)]
