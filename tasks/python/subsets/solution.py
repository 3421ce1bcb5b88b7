def _combinations(items: list, k: int) -> list[list]:
    if k == 0:
        return [[]]
    if len(items) < k:
        return []
    head, tail = items[0], items[1:]
    return [[head] + rest for rest in _combinations(tail, k - 1)] + _combinations(tail, k)


def subsets(items: list) -> list[list]:
    return [combo for k in range(len(items) + 1) for combo in _combinations(items, k)]
