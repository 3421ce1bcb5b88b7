def max_depth(value) -> int:
    if not isinstance(value, list):
        return 0
    return 1 + max((max_depth(item) for item in value), default=0)
