def reverse_list(items: list) -> list:
    return items[::-1]
