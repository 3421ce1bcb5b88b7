def pascal_row(n: int) -> list[int]:
    if n < 0:
        raise ValueError("row must not be negative")
    row = [1]
    for _ in range(n):
        row = [1] + [a + b for a, b in zip(row, row[1:])] + [1]
    return row
