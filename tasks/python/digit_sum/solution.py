def digit_sum(n: int) -> int:
    return sum(int(digit) for digit in str(abs(n)))
