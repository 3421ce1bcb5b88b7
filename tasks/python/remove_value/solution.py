def remove_value(items: list, value) -> list:
    return [item for item in items if item != value]
