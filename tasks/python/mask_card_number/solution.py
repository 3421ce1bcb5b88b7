def mask_card_number(number: str) -> str:
    to_mask = sum(c.isdigit() for c in number) - 4
    masked = []
    for c in number:
        if c.isdigit() and to_mask > 0:
            masked.append("*")
            to_mask -= 1
        else:
            masked.append(c)
    return "".join(masked)
