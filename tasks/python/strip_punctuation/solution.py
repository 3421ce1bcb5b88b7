import string

PUNCTUATION = set(string.punctuation)


def strip_punctuation(text: str) -> str:
    return "".join(c for c in text if c not in PUNCTUATION)
