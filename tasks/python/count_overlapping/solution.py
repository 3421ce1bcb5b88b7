def count_overlapping(text: str, sub: str) -> int:
    return sum(1 for i in range(len(text) - len(sub) + 1) if text.startswith(sub, i))
