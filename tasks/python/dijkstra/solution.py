import heapq
import itertools


def dijkstra(graph: dict, source) -> dict:
    if any(weight < 0 for edges in graph.values() for weight in edges.values()):
        raise ValueError("edge lengths must not be negative")
    distances: dict = {}
    order = itertools.count()  # breaks ties so nodes themselves are never compared
    queue = [(0, next(order), source)]
    while queue:
        distance, _, node = heapq.heappop(queue)
        if node in distances:
            continue
        distances[node] = distance
        for neighbour, weight in graph.get(node, {}).items():
            if neighbour not in distances:
                heapq.heappush(queue, (distance + weight, next(order), neighbour))
    return distances
