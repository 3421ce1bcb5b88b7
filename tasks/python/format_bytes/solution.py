UNITS = ["KB", "MB", "GB", "TB"]


def format_bytes(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    unit = 0
    while value >= 1024 and unit < len(UNITS) - 1:
        value /= 1024
        unit += 1
    return f"{value:.1f} {UNITS[unit]}"
