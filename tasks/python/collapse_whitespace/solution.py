def collapse_whitespace(text: str) -> str:
    return " ".join(text.split())
