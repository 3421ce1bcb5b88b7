import string


def is_pangram(text: str) -> bool:
    return set(string.ascii_lowercase) <= set(text.lower())
