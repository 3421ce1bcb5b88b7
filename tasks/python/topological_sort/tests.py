from solution import topological_sort


def _raises_value_error(graph):
    try:
        topological_sort(graph)
    except ValueError:
        return True
    return False


def test_example():
    graph = {"shop": ["cook"], "cook": ["eat"], "wake": ["shop", "cook"]}
    assert topological_sort(graph) == ["wake", "shop", "cook", "eat"]


def test_smallest_ready_node_first():
    assert topological_sort({3: [1], 2: [], 5: [4]}) == [2, 3, 1, 5, 4]


def test_nodes_only_as_targets():
    assert topological_sort({"a": ["c", "b"]}) == ["a", "b", "c"]


def test_cycle_raises():
    assert _raises_value_error({1: [2], 2: [3], 3: [1]})
    assert _raises_value_error({"x": ["x"]})
    assert topological_sort({1: [2], 2: [3]}) == [1, 2, 3]


def test_larger_graph_respects_every_edge():
    graph = {i: [j for j in (2 * i, 3 * i, i + 7) if j < 300] for i in range(1, 300)}
    order = topological_sort(graph)
    assert type(order) is list
    position = {node: k for k, node in enumerate(order)}
    assert sorted(order) == list(range(1, 300))
    assert all(position[u] < position[v] for u, targets in graph.items() for v in targets)
    assert order[:5] == [1, 2, 3, 4, 5]
