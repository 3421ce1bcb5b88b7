def rotate_list(items: list, k: int) -> list:
    if not items:
        return []
    k %= len(items)
    return items[-k:] + items[:-k] if k else list(items)
