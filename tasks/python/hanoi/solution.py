def hanoi(n: int, source: str = "A", target: str = "C", spare: str = "B") -> list[tuple[str, str]]:
    if n == 0:
        return []
    return hanoi(n - 1, source, spare, target) + [(source, target)] + hanoi(n - 1, spare, target, source)
