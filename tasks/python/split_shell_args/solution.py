def split_shell_args(line: str) -> list[str]:
    args: list[str] = []
    current: list[str] = []
    in_arg = False
    i = 0
    while i < len(line):
        c = line[i]
        if c.isspace():
            if in_arg:
                args.append("".join(current))
                current, in_arg = [], False
            i += 1
            continue
        in_arg = True
        if c == "\\":
            if i + 1 == len(line):
                raise ValueError("backslash at end of line")
            current.append(line[i + 1])
            i += 2
        elif c == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise ValueError("unterminated single quote")
            current.append(line[i + 1 : end])
            i = end + 1
        elif c == '"':
            i += 1
            while True:
                if i >= len(line):
                    raise ValueError("unterminated double quote")
                c = line[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < len(line) and line[i + 1] in '"\\':
                    current.append(line[i + 1])
                    i += 2
                else:
                    current.append(c)
                    i += 1
        else:
            current.append(c)
            i += 1
    if in_arg:
        args.append("".join(current))
    return args
