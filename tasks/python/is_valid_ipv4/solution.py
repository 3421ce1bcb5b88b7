def _valid_part(part: str) -> bool:
    if not 1 <= len(part) <= 3 or not all(c in "0123456789" for c in part):
        return False
    if len(part) > 1 and part[0] == "0":
        return False
    return int(part) <= 255


def is_valid_ipv4(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 4 and all(_valid_part(part) for part in parts)
