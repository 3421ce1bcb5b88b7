def key_with_max_value(data: dict):
    if not data:
        return None
    return max(data, key=data.get)
