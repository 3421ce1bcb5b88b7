from collections import Counter


def majority_element(items: list):
    if not items:
        return None
    value, count = Counter(items).most_common(1)[0]
    return value if count * 2 > len(items) else None
