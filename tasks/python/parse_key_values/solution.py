def parse_key_values(text: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for segment in text.split(";"):
        if not segment.strip():
            continue
        key, sep, value = segment.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"malformed segment: {segment!r}")
        result[key.strip()] = value.strip()
    return result
