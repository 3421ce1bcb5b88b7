import re

ITEM = re.compile(r"(\d+)(?:-(\d+))?")


def expand_ranges(text: str) -> list[int]:
    if not text.strip():
        return []
    numbers: list[int] = []
    for item in text.split(","):
        match = ITEM.fullmatch(item.strip())
        if match is None:
            raise ValueError(f"bad item: {item!r}")
        start = int(match.group(1))
        end = int(match.group(2)) if match.group(2) else start
        if start > end:
            raise ValueError(f"backwards range: {item!r}")
        numbers.extend(range(start, end + 1))
    return numbers
