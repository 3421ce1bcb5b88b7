def rgb_to_hex(r: int, g: int, b: int) -> str:
    for value in (r, g, b):
        if not 0 <= value <= 255:
            raise ValueError(f"component out of range: {value}")
    return f"#{r:02x}{g:02x}{b:02x}"
