def interleave_strings(a: str, b: str) -> str:
    shared = min(len(a), len(b))
    merged = "".join(x + y for x, y in zip(a, b))
    return merged + a[shared:] + b[shared:]
