def grid_paths(grid: list[list[int]]) -> int:
    if not grid or not grid[0]:
        return 0
    width = len(grid[0])
    ways = [0] * width  # ways[c]: paths reaching column c of the current row
    ways[0] = 1
    for row in grid:
        for c in range(width):
            if row[c]:
                ways[c] = 0
            elif c > 0:
                ways[c] += ways[c - 1]
    return ways[-1]
