def permutations(items: list) -> list[list]:
    if len(items) <= 1:
        return [list(items)]
    result = []
    for i, first in enumerate(items):
        for rest in permutations(items[:i] + items[i + 1:]):
            result.append([first] + rest)
    return result
