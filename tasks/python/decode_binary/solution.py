def decode_binary(bits: str) -> str:
    if not bits:
        return ""
    chars = []
    for group in bits.split(" "):
        if len(group) != 8 or set(group) - {"0", "1"}:
            raise ValueError(f"bad group: {group!r}")
        chars.append(chr(int(group, 2)))
    return "".join(chars)
