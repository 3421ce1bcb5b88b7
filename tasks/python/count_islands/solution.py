def count_islands(grid: list[list[str]]) -> int:
    seen: set[tuple[int, int]] = set()
    rows = len(grid)
    count = 0
    for r in range(rows):
        for c in range(len(grid[r])):
            if grid[r][c] != "1" or (r, c) in seen:
                continue
            count += 1
            stack = [(r, c)]
            seen.add((r, c))
            while stack:
                y, x = stack.pop()
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < rows and 0 <= nx < len(grid[ny]) and grid[ny][nx] == "1" and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        stack.append((ny, nx))
    return count
