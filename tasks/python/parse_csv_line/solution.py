def parse_csv_line(line: str) -> list[str]:
    fields, field = [], []
    i, in_quotes = 0, False
    while i < len(line):
        c = line[i]
        if in_quotes:
            if c == '"' and line[i + 1:i + 2] == '"':
                field.append('"')
                i += 1
            elif c == '"':
                in_quotes = False
            else:
                field.append(c)
        elif c == '"':
            in_quotes = True
        elif c == ",":
            fields.append("".join(field))
            field = []
        else:
            field.append(c)
        i += 1
    if in_quotes:
        raise ValueError("unterminated quoted field")
    fields.append("".join(field))
    return fields
