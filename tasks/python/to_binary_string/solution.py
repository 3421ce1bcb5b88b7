def to_binary_string(n: int, width: int) -> str:
    return format(n, "b").zfill(width)
