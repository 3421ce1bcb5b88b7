"""The sandboxed side of the execution reward: serve the candidate solution to the host, one request at a time.

Compiled into the sandbox's work dir, next to ``wire.py``'s bytecode and the candidate's
``solution.py`` (no tests, no expected values: they never leave the host), and run there as
``python -B -E -s -S -c "import candidate_server; candidate_server.main()"`` (the work dir first on
``sys.path``) with a :class:`rusty_hf.sandbox.channel.Channel` as stdin and stdout. Standard library only.

Each request is a line ``[id, op, ...]``; each answer ``[id, "v", value, synced]``, ``[id, "n", items,
error]`` (a batch of ``next``) or ``[id, "e", error]``, where an error is ``[builtin class name,
handle of the solution's own class or null, message]``. Ops:

- ``["import"]``: import the solution; ``["names"]``: what a star import of the solution binds (its
  ``__all__``, else its names without a leading underscore), each as ``[name, module]``: ``module``
  the ``__name__`` of a module object, else null; ``["get", target, name]``: an attribute of a
  handle (null: of the solution module); ``["call", target, args, kwargs]``: call it, answering also the arguments
  the call changed in place (``synced``: ``[i, "v", new value]``, or ``[i, "p", position]`` for an
  iterator); ``["op", name, args]``: an operator (``==``, ``+``, ``len``, ``repr``, ``iter``...);
  ``["next", target, n]``: up to ``n`` items of an iterator.

Values travel as ``wire.py`` encodes them; anything that is not plain data stays here and travels as
a handle. Nothing here is trusted by the host: the solution runs in this process and may rewrite any
of it. What the host gets from that is only the power to answer requests -- as hard as solving the task.
"""

from __future__ import annotations

import operator
import os

import wire

_OPERATORS = {name.rstrip("_"): getattr(operator, name) for name in (
    "eq ne lt le gt ge add sub mul matmul truediv floordiv mod pow and_ or_ xor lshift rshift "
    "neg pos abs invert contains getitem setitem delitem truth index").split()}  # fmt: skip
_OPERATORS.update(len=len, hash=hash, repr=repr, str=str, iter=iter, isinstance=isinstance, issubclass=issubclass)
_STRUCTURAL = frozenset({list, tuple, set, frozenset, dict, bytes})
_ITERATORS = frozenset({type(iter([])), type(iter(())), type(iter("")), type(iter("\u00e9"))})
_MESSAGE_CHARS = 200
_NOT_AN_ARGUMENT = object()


class Server:
    """The handles the host holds, and the dispatch of its requests."""

    def __init__(self) -> None:
        self.objects: list[object] = []  # a handle is an index here; kept alive, so ids stay unique
        self.index: dict[int, int] = {}
        self.module = None
        self.arguments: list[object] = []  # of the call being answered: returned as themselves

    def handle(self, obj: object) -> list:
        number = self.index.get(id(obj))
        if number is None:
            number = self.index[id(obj)] = len(self.objects)
            self.objects.append(obj)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            return [number, "x", str(obj.__name__), _builtin_base(obj).__name__]
        return [number, "c" if isinstance(obj, type) else "o"]

    def special(self, value: object) -> object | None:
        for position, argument in enumerate(self.arguments):
            if value is argument:
                return {"a": position}
        if type(value) in _STRUCTURAL:
            return None
        return {"h": self.handle(value)}

    def resolve(self, payload: list) -> object:
        return self.objects[payload[0]]

    def target(self, number: object) -> object:
        if number is None:
            return self.module
        return self.objects[number]

    def encode(self, value: object) -> object:
        return wire.encode(value, self.special)

    def answer(self, request: list) -> list:
        op = request[1]
        if op == "import":
            self.module = __import__("solution")
            return ["v", None, []]
        if op == "names":
            return ["v", self.encode(_public_names(self.module)), []]
        if op == "get":
            return ["v", self.encode(getattr(self.target(request[2]), request[3])), []]
        if op == "op":
            return ["v", self.encode(_OPERATORS[request[2]](*request[3])), []]
        if op == "next":
            return self.next_items(self.target(request[2]), request[3])
        if op == "call":
            return self.call(self.target(request[2]), request[3], request[4])
        raise ValueError(f"unknown op {op!r}")

    def call(self, function: object, args: list, kwargs: dict) -> list:
        before = [_snapshot(a) for a in args]
        self.arguments = args
        try:
            value = self.encode(function(*args, **kwargs))
            synced = []
            for position, (argument, old) in enumerate(zip(args, before)):
                if type(argument) in _ITERATORS:
                    synced.append([position, "p", _position(argument)])
                elif type(argument) in (list, dict, set) and argument != old:
                    self.arguments = [a if i != position else _NOT_AN_ARGUMENT for i, a in enumerate(args)]
                    synced.append([position, "v", self.encode(argument)])  # its content, not itself
            return ["v", value, synced]
        finally:
            self.arguments = []

    def next_items(self, iterator: object, count: int) -> list:
        items, error = [], None
        for _ in range(count):
            try:
                items.append(next(iterator))
            except BaseException as exc:  # StopIteration included: the host raises it in turn
                error = self.describe(exc)
                break
        return ["n", self.encode(items), error]

    def describe(self, exc: BaseException) -> list:
        kind = type(exc)
        own = None if kind.__module__ == "builtins" else {"h": self.handle(kind)}
        try:
            message = str(exc)[:_MESSAGE_CHARS]
        except BaseException:  # an exception whose __str__ raises is still an exception
            message = ""
        return [_builtin_base(kind).__name__, own, message if type(message) is str else ""]


def _public_names(module: object) -> list:
    """``[name, module name or None]`` for each name a star import of ``module`` binds."""
    names = getattr(module, "__all__", None)
    if not isinstance(names, (list, tuple)):
        names = [name for name in vars(module) if not name.startswith("_")]
    found = []
    for name in names:
        value = getattr(module, name, None)  # a missing name fails when the host reads it, as in Python
        found.append([name, value.__name__ if isinstance(value, type(os)) else None])
    return found


def _builtin_base(kind: type) -> type:
    return next(c for c in kind.__mro__ if c.__module__ == "builtins")


def _snapshot(value: object) -> object:
    """A copy of a plain container deep enough that ``!=`` sees any change made in place."""
    kind = type(value)
    if kind is list:
        if set(map(type, value)) <= wire.SCALARS:
            return list(value)
        return [_snapshot(v) for v in value]
    if kind is dict:
        return {k: _snapshot(v) for k, v in value.items()}
    if kind is set:
        return set(value)
    if kind is tuple:
        return tuple(_snapshot(v) for v in value)
    return value


def _position(iterator: object) -> int:
    state = iterator.__reduce__()
    return state[2] if len(state) > 2 else len(state[1][0])


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def main() -> None:
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.dup(1)
    quiet = os.open(os.devnull, os.O_RDWR)
    os.dup2(quiet, 0)  # the solution's input() reads nothing, and its print() goes nowhere
    os.dup2(quiet, 1)
    server = Server()
    for line in requests:
        number = None
        try:
            request = wire.loads(line, wire.HOST_TAGS, handle=server.resolve, checked=False)
            number = request[0]
            reply = [number, *server.answer(request)]
        except BaseException as exc:  # the solution's exceptions are answers too
            reply = [number, "e", server.describe(exc)]
        try:
            data = wire.dumps(reply)
        except BaseException as exc:  # e.g. an integer too long to print
            data = wire.dumps([number, "e", server.describe(exc)])
        _write_all(answers, data)


if __name__ == "__main__":
    main()
