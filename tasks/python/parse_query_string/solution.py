HEX_DIGITS = set("0123456789abcdefABCDEF")


def _decode(text: str) -> str:
    data = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "+":
            data += b" "
            i += 1
        elif c == "%":
            code = text[i + 1 : i + 3]
            if len(code) != 2 or not set(code) <= HEX_DIGITS:
                raise ValueError(f"bad escape at position {i} in {text!r}")
            data.append(int(code, 16))
            i += 3
        else:
            data += c.encode("utf-8")
            i += 1
    return data.decode("utf-8")


def parse_query_string(query: str) -> dict[str, list[str]]:
    result: dict[str, list[str]] = {}
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        result.setdefault(_decode(name), []).append(_decode(value))
    return result
