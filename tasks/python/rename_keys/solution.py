def rename_keys(data: dict, mapping: dict) -> dict:
    return {mapping.get(key, key): value for key, value in data.items()}
