import re

PATTERN = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def parse_hex_color(text: str) -> tuple[int, int, int]:
    match = PATTERN.fullmatch(text)
    if match is None:
        raise ValueError(f"not a hex colour: {text!r}")
    digits = match.group(1)
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return tuple(int(digits[i : i + 2], 16) for i in range(0, 6, 2))
