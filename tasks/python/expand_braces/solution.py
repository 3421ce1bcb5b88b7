def _sequence(pattern: str, i: int, nested: bool) -> tuple[list[str], int]:
    """Expand from position i up to the end, or (when nested) up to a ',' or '}' of this group."""
    results = [""]
    while i < len(pattern):
        c = pattern[i]
        if c == "{":
            options, i = _group(pattern, i + 1)
            results = [r + o for r in results for o in options]
        elif c == "}":
            if not nested:
                raise ValueError(f"unmatched '}}' at position {i}")
            break
        elif c == "," and nested:
            break
        else:
            results = [r + c for r in results]
            i += 1
    return results, i


def _group(pattern: str, i: int) -> tuple[list[str], int]:
    """Expand the alternatives of a group whose '{' is just before position i."""
    options: list[str] = []
    while True:
        part, i = _sequence(pattern, i, nested=True)
        options.extend(part)
        if i >= len(pattern):
            raise ValueError("unmatched '{'")
        if pattern[i] == "}":
            return options, i + 1
        i += 1


def expand_braces(pattern: str) -> list[str]:
    return _sequence(pattern, 0, nested=False)[0]
