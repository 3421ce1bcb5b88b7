def is_all_digits(text: str) -> bool:
    return bool(text) and all(c in "0123456789" for c in text)
