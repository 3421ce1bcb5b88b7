def dot_product(a: list[float], b: list[float]) -> float:
    if len(a) != len(b):
        raise ValueError(f"lengths differ: {len(a)} and {len(b)}")
    return sum(x * y for x, y in zip(a, b))
