def invert_dict(mapping: dict[str, int]) -> dict[int, list[str]]:
    inverted: dict[int, list[str]] = {}
    for key, value in mapping.items():
        inverted.setdefault(value, []).append(key)
    return {value: sorted(keys) for value, keys in inverted.items()}
