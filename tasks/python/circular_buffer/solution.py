from collections import deque


class CircularBuffer:
    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._items: deque = deque(maxlen=capacity)

    def append(self, item) -> None:
        self._items.append(item)

    def popleft(self):
        if not self._items:
            raise IndexError("popleft from an empty buffer")
        return self._items.popleft()

    def to_list(self) -> list:
        return list(self._items)

    def is_full(self) -> bool:
        return len(self._items) == self.capacity

    def __len__(self) -> int:
        return len(self._items)
