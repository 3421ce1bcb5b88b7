def spiral_order(matrix: list[list[int]]) -> list[int]:
    result: list[int] = []
    if not matrix:
        return result
    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        result += [matrix[top][c] for c in range(left, right + 1)]
        result += [matrix[r][right] for r in range(top + 1, bottom + 1)]
        if top < bottom:
            result += [matrix[bottom][c] for c in range(right - 1, left - 1, -1)]
        if left < right:
            result += [matrix[r][left] for r in range(bottom - 1, top, -1)]
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return result
