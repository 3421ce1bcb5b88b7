def sign(x: float) -> int:
    return (x > 0) - (x < 0)
