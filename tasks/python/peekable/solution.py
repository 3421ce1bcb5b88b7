_NOTHING = object()


class Peekable:
    def __init__(self, iterable) -> None:
        self._iterator = iter(iterable)
        self._next = _NOTHING

    def __iter__(self) -> "Peekable":
        return self

    def __next__(self):
        if self._next is not _NOTHING:
            item, self._next = self._next, _NOTHING
            return item
        return next(self._iterator)

    def peek(self, default=None):
        if self._next is _NOTHING:
            self._next = next(self._iterator, _NOTHING)
        return default if self._next is _NOTHING else self._next
