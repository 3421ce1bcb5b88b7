def is_rotation(a: str, b: str) -> bool:
    return len(a) == len(b) and b in a + a
