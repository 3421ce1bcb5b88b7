ALLOWED = set("0123456789 -.()+")


def normalize_phone(text: str) -> str:
    if not set(text) <= ALLOWED:
        raise ValueError(f"unexpected character in {text!r}")
    digits = "".join(c for c in text if c.isdigit())
    if len(digits) == 11 and digits[0] == "1":
        digits = digits[1:]
    if len(digits) != 10:
        raise ValueError(f"not a 10-digit number: {text!r}")
    return f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"
