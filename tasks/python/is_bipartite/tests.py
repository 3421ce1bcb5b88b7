from solution import is_bipartite


def test_even_cycle():
    assert is_bipartite({1: [2, 4], 2: [1, 3], 3: [2, 4], 4: [3, 1]}) is True
    assert is_bipartite({1: [2, 3], 2: [1, 3], 3: [2, 1]}) is False


def test_triangle():
    assert is_bipartite({"a": ["b", "c"], "b": ["a", "c"], "c": ["a", "b"]}) is False
    assert is_bipartite({"a": ["b", "c"], "b": ["a"], "c": ["a"]}) is True


def test_odd_cycle_in_second_piece():
    graph = {1: [2], 2: [1], 3: [4, 5], 4: [3, 5], 5: [3, 4], 6: []}
    assert is_bipartite(graph) is False
    del graph[5]
    graph[3], graph[4] = [4], [3]
    assert is_bipartite(graph) is True


def test_tree_and_empty_graph():
    tree = {"r": ["a", "b"], "a": ["r", "c"], "b": ["r"], "c": ["a"]}
    assert is_bipartite(tree) is True and is_bipartite({}) is True
    tree["c"].append("r")
    tree["r"].append("c")
    assert is_bipartite(tree) is False


def test_self_loop():
    assert is_bipartite({1: [1]}) is False and is_bipartite({1: [2], 2: [1]}) is True
