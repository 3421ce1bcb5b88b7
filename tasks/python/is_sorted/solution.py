def is_sorted(items: list) -> bool:
    return all(a <= b for a, b in zip(items, items[1:]))
