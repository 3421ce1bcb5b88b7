def most_common_char(text: str) -> str:
    counts: dict[str, int] = {}
    for c in text:
        if c != " ":
            counts[c] = counts.get(c, 0) + 1
    if not counts:
        return ""
    return max(counts, key=counts.get)
