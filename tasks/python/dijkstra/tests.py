from solution import dijkstra


def test_example_prefers_detour():
    graph = {"A": {"B": 5, "C": 1}, "C": {"B": 2}}
    assert dijkstra(graph, "A") == {"A": 0, "B": 3, "C": 1}


def test_unreachable_nodes_left_out():
    graph = {"A": {"B": 1}, "B": {}, "X": {"A": 1}}
    assert dijkstra(graph, "A") == {"A": 0, "B": 1}


def test_cycles_and_zero_weights():
    graph = {1: {2: 0, 3: 4}, 2: {1: 0, 3: 1}, 3: {1: 2}}
    assert dijkstra(graph, 1) == {1: 0, 2: 0, 3: 1}


def test_long_chain():
    graph = {i: {i + 1: 1, i + 2: 3} for i in range(2000)}
    distances = dijkstra(graph, 0)
    assert type(distances) is dict and distances[2000] == 2000 and distances[2001] == 2002 and len(distances) == 2002


def test_negative_edge_raises():
    assert dijkstra({"A": {"B": 0}}, "A") == {"A": 0, "B": 0}
    try:
        dijkstra({"A": {"B": -1}}, "A")
    except ValueError:
        return
    raise AssertionError("a negative edge should raise ValueError")
