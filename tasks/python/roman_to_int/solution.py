VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def roman_to_int(numeral: str) -> int:
    if not numeral or any(c not in VALUES for c in numeral):
        raise ValueError(f"not a Roman numeral: {numeral!r}")
    total = 0
    for current, following in zip(numeral, numeral[1:] + " "):
        value = VALUES[current]
        if following != " " and VALUES[following] > value:
            total -= value
        else:
            total += value
    return total
