def interleave(a: list, b: list) -> list:
    result = []
    for x, y in zip(a, b):
        result += [x, y]
    shorter = min(len(a), len(b))
    return result + a[shorter:] + b[shorter:]
