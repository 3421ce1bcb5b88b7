"""What a test holds for the sandboxed solution's functions, classes and objects: :class:`RemoteObject`.

Every use of a proxy -- an attribute, a call, an operator, ``len``, ``hash``, ``iter``, ``isinstance``
-- is a request through the :class:`~rusty_hf.rewards.python_exec.remote.Remote` it came from (``remote.py``
says what comes back and what keeps the candidate from choosing its verdict). The rules that live
here:

- comparisons (``==``, ``!=``, ``<``...) only ever involve two proxies of the same conversation; with
  plain data they are ``NotImplemented``, so a proxy never equals an expected value, whatever the
  candidate's ``__eq__`` says. Between two proxies the answer must be a ``bool`` (a truthy object
  would let the candidate choose again when the assert asks its truth), and ``a != b`` is ``not (a
  == b)``: the candidate's ``__ne__`` is never asked, so an ``==`` and ``!=`` that both say yes
  cannot pass a test that checks one pair equal and another not. Such tests judge the candidate's
  ``__eq__`` itself; the tasks' tests judge every other result on plain values (``tasks/README.md``);
- an arithmetic operator between a proxy and plain data must answer another proxy (``v * 3``): a
  plain answer is a TypeError, or an object whose ``-`` answers ``0`` would pass HumanEval's
  ``abs(candidate(x) - 0.5) < 1e-6``, whatever it computed;
- ``len``/``hash``/``bool``/``repr``/``str`` must come back as the builtin type Python requires, or
  the test gets a TypeError.

``iter(proxy)`` gives a :class:`RemoteIteration`, which fetches items in growing batches. What the
host needs of a proxy to send it back (its handle) it asks through :func:`handle_number`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # remote.py imports this module: no import back at run time
    from rusty_hf.rewards.python_exec.remote import Remote

_MAX_BATCH = 256


class RemoteObject:
    """A function, class or object of the sandboxed solution (see the module docstring)."""

    __slots__ = ("_number", "_remote")

    def __init__(self, remote: Remote, number: int | None) -> None:
        self._remote, self._number = remote, number

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") and name.endswith("__"):  # copy, pickle and friends probing
            raise AttributeError(name)
        return self._remote.value("get", self._number, name)

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._remote.call(self._number, args, kwargs)

    def __iter__(self) -> RemoteIteration:
        iterator = self._remote.operate("iter", self)
        if not isinstance(iterator, RemoteObject):
            raise TypeError("iter() of a sandboxed object returned plain data")
        return RemoteIteration(iterator)

    def __next__(self) -> object:
        return self._remote.next_item(self._number)

    def _typed(self, name: str, kind: type) -> object:
        result = self._remote.operate(name, self)
        if type(result) is not kind:
            raise TypeError(f"{name}() of a sandboxed object returned {type(result).__name__}, not {kind.__name__}")
        return result

    def __len__(self) -> int:
        return self._typed("len", int)

    def __hash__(self) -> int:
        return self._typed("hash", int)

    def __bool__(self) -> bool:
        return self._typed("truth", bool)

    def __repr__(self) -> str:
        return self._typed("repr", str) if self._remote.broken is None else "<sandboxed object>"

    def __str__(self) -> str:
        return self._typed("str", str)

    def __instancecheck__(self, instance: object) -> bool:  # isinstance(x, SolutionClass)
        return self._remote.operate("isinstance", instance, self) is True

    def __subclasscheck__(self, subclass: object) -> bool:
        return self._remote.operate("issubclass", subclass, self) is True

    def __contains__(self, item: object) -> bool:
        return bool(self._remote.operate("contains", self, item))

    def __getitem__(self, key: object) -> object:
        return self._remote.operate("getitem", self, key)

    def __setitem__(self, key: object, value: object) -> None:
        self._remote.operate("setitem", self, key, value)

    def __abs__(self) -> object:
        return self._remote.operate("abs", self)

    def __neg__(self) -> object:
        return self._remote.operate("neg", self)

    def __pos__(self) -> object:
        return self._remote.operate("pos", self)

    def __invert__(self) -> object:
        return self._remote.operate("invert", self)


def handle_number(proxy: RemoteObject, remote: Remote) -> int | None:
    """The number that names ``proxy`` in ``remote``'s conversation with the sandbox (None: the module).

    A function, not an attribute: every attribute of a proxy is the solution's (``proxy.number`` is a
    request), so what the host needs of one is asked here.

    Raises:
        TypeError: ``proxy`` belongs to another conversation (another run's object).
    """
    if proxy._remote is not remote:
        raise TypeError("a proxy of another run")
    return proxy._number


class RemoteModule(RemoteObject):
    """The solution module: a proxy that also answers ``__name__``, ``__all__`` and ``dir()``."""

    __slots__ = ()

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return "solution"

    @property
    def __all__(self) -> list[str]:
        return [name for name, _ in self._remote.public_names()]

    def __dir__(self) -> list[str]:
        return sorted(self.__all__)


class RemoteIteration:
    """``iter(proxy)``: items fetched in growing batches, shared with ``next(proxy)`` on the same iterator."""

    def __init__(self, iterator: RemoteObject) -> None:
        self._iterator = iterator
        self._batch = 1

    def __iter__(self) -> RemoteIteration:
        return self

    def __next__(self) -> object:
        item = self._iterator._remote.next_item(self._iterator._number, self._batch)
        self._batch = min(2 * self._batch, _MAX_BATCH)
        return item


def _comparison(name: str):
    asked = "eq" if name == "ne" else name

    def compare(self: RemoteObject, other: object) -> object:
        if not isinstance(other, RemoteObject) or other._remote is not self._remote:
            return NotImplemented  # never equal to, or ordered against, plain data
        answer = self._remote.operate(asked, self, other)
        if type(answer) is not bool:
            raise TypeError(f"{asked}() of two sandboxed objects returned {type(answer).__name__}, not bool")
        return not answer if name == "ne" else answer

    compare.__name__ = f"__{name}__"
    return compare


def _binary(name: str, reflected: bool):
    def apply(self: RemoteObject, other: object) -> object:
        answer = self._remote.operate(name, *((other, self) if reflected else (self, other)))
        if not isinstance(other, RemoteObject) and not isinstance(answer, RemoteObject):
            raise TypeError(
                f"{name}() of a sandboxed object and plain data answered plain {type(answer).__name__}: the "
                "solution would choose the value the test judges (abs(result - expected) < tolerance)"
            )
        return answer

    apply.__name__ = f"__{'r' if reflected else ''}{name}__"
    return apply


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(RemoteObject, f"__{_name}__", _comparison(_name))
for _name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor"):
    setattr(RemoteObject, f"__{_name}__", _binary(_name, False))
    setattr(RemoteObject, f"__r{_name}__", _binary(_name, True))
del _name
