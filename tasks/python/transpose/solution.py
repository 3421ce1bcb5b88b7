def transpose(matrix: list[list[int]]) -> list[list[int]]:
    if not matrix:
        return []
    width = len(matrix[0])
    if any(len(row) != width for row in matrix):
        raise ValueError("rows have different lengths")
    return [[row[i] for row in matrix] for i in range(width)]
