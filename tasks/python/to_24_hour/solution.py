import re

PATTERN = re.compile(r"(\d{1,2}):(\d{2}) ([AaPp][Mm])")


def to_24_hour(text: str) -> str:
    match = PATTERN.fullmatch(text)
    if match is None:
        raise ValueError(f"bad time: {text!r}")
    hour, minute = int(match.group(1)), int(match.group(2))
    if not 1 <= hour <= 12 or minute > 59:
        raise ValueError(f"bad time: {text!r}")
    hour %= 12
    if match.group(3).upper() == "PM":
        hour += 12
    return f"{hour:02d}:{minute:02d}"
