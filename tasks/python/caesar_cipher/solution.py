def caesar_cipher(text: str, shift: int) -> str:
    out = []
    for c in text:
        if "a" <= c <= "z" or "A" <= c <= "Z":
            base = ord("a") if c.islower() else ord("A")
            out.append(chr(base + (ord(c) - base + shift) % 26))
        else:
            out.append(c)
    return "".join(out)
