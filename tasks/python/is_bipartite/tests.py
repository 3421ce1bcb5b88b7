from solution import is_bipartite


def test_even_cycle():
    assert is_bipartite({1: [2, 4], 2: [1, 3], 3: [2, 4], 4: [3, 1]}) is True


def test_triangle():
    assert is_bipartite({"a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]}) is False


def test_odd_cycle_in_second_piece():
    graph = {1: [2], 2: [1], 3: [4, 5], 4: [3, 5], 5: [3, 4], 6: []}
    assert is_bipartite(graph) is False


def test_tree_and_empty_graph():
    tree = {"r": ["a", "b"], "a": ["r", "c"], "b": ["r"], "c": ["a"]}
    assert is_bipartite(tree) is True and is_bipartite({}) is True


def test_self_loop():
    assert is_bipartite({1: [1]}) is False
