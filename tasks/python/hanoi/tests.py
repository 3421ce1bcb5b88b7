from solution import hanoi


def _legal(moves, n):
    pegs = {"A": list(range(n, 0, -1)), "B": [], "C": []}
    for a, b in moves:
        disk = pegs[a].pop()
        if pegs[b] and pegs[b][-1] < disk:
            return False
        pegs[b].append(disk)
    return pegs["C"] == list(range(n, 0, -1))


def test_two():
    assert hanoi(2) == [("A", "B"), ("A", "C"), ("B", "C")]


def test_zero():
    assert hanoi(0) == [] and hanoi(1) == [("A", "C")]


def test_optimal_count():
    moves = hanoi(6)
    assert type(moves) is list and len(moves) == 63


def test_moves_are_legal():
    assert _legal(hanoi(5), 5)
