def run_length_decode(encoded: str) -> str:
    out = []
    count = ""
    for c in encoded:
        if c.isdigit():
            count += c
        elif count:
            out.append(c * int(count))
            count = ""
        else:
            raise ValueError(f"character {c!r} has no count")
    if count:
        raise ValueError("count at the end without a character")
    return "".join(out)
