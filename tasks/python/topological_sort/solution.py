import heapq


def topological_sort(graph: dict) -> list:
    incoming: dict = {}
    for node, targets in graph.items():
        incoming.setdefault(node, 0)
        for target in targets:
            incoming[target] = incoming.get(target, 0) + 1
    ready = [node for node, count in incoming.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for target in graph.get(node, []):
            incoming[target] -= 1
            if incoming[target] == 0:
                heapq.heappush(ready, target)
    if len(order) != len(incoming):
        raise ValueError("the graph has a cycle")
    return order
