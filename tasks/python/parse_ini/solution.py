def parse_ini(text: str) -> dict[str, dict[str, str]]:
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip(), {})
        elif "=" in line:
            key, _, value = line.partition("=")
            if current is None or not key.strip():
                raise ValueError(f"line {number}: key outside a section or empty key")
            current[key.strip()] = value.strip()
        else:
            raise ValueError(f"line {number}: cannot parse {raw!r}")
    return sections
