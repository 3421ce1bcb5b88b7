import re

PATTERN = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def is_valid_date(text: str) -> bool:
    match = PATTERN.fullmatch(text)
    if match is None:
        return False
    year, month, day = (int(g) for g in match.groups())
    if year < 1 or not 1 <= month <= 12:
        return False
    days = 29 if month == 2 and _is_leap(year) else DAYS[month - 1]
    return 1 <= day <= days
