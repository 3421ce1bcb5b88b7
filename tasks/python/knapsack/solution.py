def knapsack(items: list[tuple[int, int]], capacity: int) -> int:
    if capacity < 0:
        raise ValueError("capacity must not be negative")
    best = [0] * (capacity + 1)  # best[w]: the most value within weight w
    for weight, value in items:
        for w in range(capacity, weight - 1, -1):
            best[w] = max(best[w], best[w - weight] + value)
    return best[capacity]
