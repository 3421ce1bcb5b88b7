"""The host's view of a sandboxed solution: proxies whose every use is a request over the channel.

``Remote(channel).module()`` stands for the candidate's ``solution`` module (``public_names()``: what
``from solution import *`` may bind, see ``collect.py``). Its functions, classes and
objects are proxies (:class:`RemoteObject`); calling one, reading an attribute, or using an operator on
it (``==``, ``+``, ``len``, ``iter``, ``repr``...) sends one request to ``candidate_server.py`` and
decodes the answer with ``wire.py``. Whatever comes back is either plain data (builtin ``int``,
``str``, ``list``... built here) or another proxy; nothing the candidate wrote ever runs here.

What keeps the candidate from choosing its verdict:

- a proxy never equals plain data, nor orders against it: ``==``/``<`` with anything but another
  proxy of the same conversation is ``NotImplemented``, so an object whose ``__eq__`` says yes to
  everything fails ``assert f(x) == 3``; between two proxies ``==`` must answer a bool and ``!=``
  is its negation; an operator with plain data must answer a proxy; ``len``/``hash``/``bool``/``repr``
  must answer an int, int, bool, str, else the test gets a TypeError (``proxies.py``);
- each request carries 64 fresh random bits that the answer must echo: an answer written before the
  request was read, a second answer to one request, or a line that is not the wire format breaks the
  conversation (:class:`SandboxBroken`, a BaseException so that no ``except Exception`` in a test can
  swallow it; the caller also checks ``Remote.broken`` after every test);
- the solution's exceptions come back as the builtin class they derive from (its own classes become
  fresh local subclasses of it); a SystemExit or KeyboardInterrupt becomes :class:`SandboxRaised`;
- bounded: a message of at most ``channel.max_message`` bytes, ``MAX_RECEIVED`` bytes a run.

Arguments travel as copies; a list, dict or set the call changed in place is changed here too, an
iterator over a list/tuple/str advances here as far as it did there, and a returned argument is the
caller's own object (``f(xs) is xs``). Iterating a proxy fetches items in growing batches (1, 2, 4, ...
256): a generator may run a few items ahead of what the test consumed.
"""

from __future__ import annotations

import builtins
import itertools
import secrets
from collections import deque

from rusty_hf.rewards.python_exec.sandboxed import wire
from rusty_hf.rewards.python_exec.proxies import RemoteModule, RemoteObject, handle_number
from rusty_hf.sandbox.channel import Channel, ChannelError, ChannelTimeout

MAX_RECEIVED = 16 << 20
_ITERATORS = (type(iter([])), type(iter(())), type(iter("")), type(iter("\u00e9")))


class SandboxBroken(BaseException):
    """The conversation with the sandboxed solution cannot go on; the run earns no test credit."""


class SandboxRaised(Exception):
    """The solution raised something that is not an ``Exception`` (SystemExit, KeyboardInterrupt...)."""


class Remote:
    """One conversation with one sandboxed solution: requests, the proxies it handed out, its errors."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.broken: str | None = None
        self.timed_out = False
        self.received = 0
        self._proxies: dict[int, object] = {}
        self._numbers: dict[type, int] = {}  # local exception classes made for the solution's own
        self._pending: dict[int, deque] = {}  # items fetched ahead, per iterator
        self._errors: dict[int, BaseException] = {}
        self._module: RemoteModule | None = None
        self._names: list[tuple[str, str | None]] | None = None

    # --- one request ------------------------------------------------------------------------

    def _break(self, why: str) -> SandboxBroken:
        if self.broken is None:
            self.broken = why
        return SandboxBroken(self.broken)

    def request(self, op: str, *parts: object, arguments: tuple = ()) -> list:
        """Send ``[id, op, *parts]`` (already encoded) and return the checked answer without its id."""
        if self.broken is not None:
            raise SandboxBroken(self.broken)
        number = secrets.token_hex(8)

        def argument(position: int) -> object:
            if not 0 <= position < len(arguments):
                raise wire.WireError("a reference to an argument the call did not have")
            return arguments[position]

        try:
            self.channel.send(wire.dumps([number, op, *parts]))
            line = self.channel.receive()
            self.received += len(line)
            if self.received > MAX_RECEIVED:
                raise wire.WireError(f"the solution sent more than {MAX_RECEIVED >> 20} MB")
            reply = wire.loads(line, wire.SANDBOX_TAGS, handle=self._proxy, argument=argument)
        except ChannelError as exc:
            self.timed_out = isinstance(exc, ChannelTimeout)
            raise self._break(f"channel: {exc}") from None
        except wire.WireError as exc:
            raise self._break(f"not the wire format: {exc}") from None
        expected = "n" if op == "next" else "v"
        if type(reply) is not list or reply[0] != number or (reply[1:2], len(reply)) not in (([expected], 4), (["e"], 3)):
            raise self._break("an answer that does not match the request")
        if reply[1] == "e":
            raise self._exception(reply[2])
        return reply[1:]

    def _exception(self, error: object) -> BaseException:
        if type(error) is not list or len(error) != 3 or type(error[0]) is not str or type(error[2]) is not str:
            return self._break("a malformed error")
        name, own, message = error
        kind = own if isinstance(own, type) and issubclass(own, Exception) else _builtin_exception(name)
        try:
            return kind(message)
        except Exception:  # e.g. UnicodeDecodeError wants five arguments
            exc = kind.__new__(kind)
            exc.args = (message,)
            return exc

    def _proxy(self, payload: list) -> object:
        number = payload[0]
        if number not in self._proxies:
            if len(payload) == 4 and payload[1] == "x" and all(type(p) is str for p in payload[2:]):
                local = type(payload[2][:100] or "Error", (_builtin_exception(payload[3]),), {"__module__": "solution"})
                self._numbers[local] = number
            elif len(payload) == 2 and payload[1] in ("o", "c"):
                local = RemoteObject(self, number)
            else:
                raise wire.WireError("a malformed handle")
            self._proxies[number] = local
        return self._proxies[number]

    def encode(self, value: object) -> object:
        return wire.encode(value, self._special)

    def _special(self, value: object) -> object | None:
        if isinstance(value, RemoteObject):
            return {"h": [handle_number(value, self)]}
        if isinstance(value, type) and value in self._numbers:
            return {"h": [self._numbers[value]]}
        if type(value) in (list, tuple, set, frozenset, dict, bytes):
            return None
        if type(value) is range:
            return {"r": [value.start, value.stop, value.step]}
        if type(value) is itertools.count:
            start, *step = value.__reduce__()[1]
            return {"c": [start, *(step or [1])]}
        if type(value) in _ITERATORS:
            state = value.__reduce__()
            return {"i": [self.encode(state[1][0]), state[2] if len(state) > 2 else 0]}
        raise TypeError(f"a {type(value).__name__} cannot be passed to the sandboxed solution")

    # --- what the proxies do ----------------------------------------------------------------

    def module(self) -> RemoteModule:
        """The solution module (imported in the sandbox on first use; its errors raise ImportError)."""
        if self._module is None:
            try:
                self.request("import")
            except Exception as exc:
                raise ImportError(f"the solution failed to import: {type(exc).__name__}: {exc}") from None
            self._module = RemoteModule(self, None)
        return self._module

    def public_names(self) -> list[tuple[str, str | None]]:
        """What ``from solution import *`` binds: ``(name, module name)`` pairs, the module name
        None unless the value is a module (asked once; a malformed answer breaks the conversation)."""
        if self._names is None:
            self.module()
            names = self.value("names")
            if type(names) is not list or not all(_is_name_pair(entry) for entry in names):
                raise self._break("a malformed list of the solution's names")
            self._names = [(name, module) for name, module in names]
        return self._names

    def value(self, op: str, *parts: object) -> object:
        return self.request(op, *parts)[1]

    def call(self, number: int | None, args: tuple, kwargs: dict) -> object:
        reply = self.request("call", number, self.encode(list(args)), self.encode(kwargs), arguments=args)
        for entry in reply[2] if type(reply[2]) is list else [None]:
            self._sync(args, entry)
        return reply[1]

    def _sync(self, args: tuple, entry: object) -> None:
        """Apply one argument change the call reported: a container's new content, an iterator's position."""
        if type(entry) is not list or len(entry) != 3 or type(entry[0]) is not int or not 0 <= entry[0] < len(args):
            raise self._break("a malformed argument change")
        local, kind, new = args[entry[0]], entry[1], entry[2]
        if kind == "p" and type(local) in _ITERATORS and type(new) is int and 0 <= new < 1 << 62:
            local.__setstate__(new)
        elif kind == "v" and type(local) is type(new) and type(new) in (list, dict, set):
            local.clear()
            if type(new) is list:
                local.extend(new)
            else:
                local.update(new)
        else:
            raise self._break("an argument change that does not fit the argument")

    def operate(self, name: str, *operands: object) -> object:
        return self.value("op", name, self.encode(list(operands)))

    def next_item(self, number: int, batch: int = 1) -> object:
        """The iterator's next item: from what was fetched ahead, else ``batch`` more from the sandbox."""
        pending = self._pending.setdefault(number, deque())
        if not pending and number not in self._errors:
            items, error = self.request("next", number, batch)[1:]
            if type(items) is not list:
                raise self._break("a malformed batch")
            pending.extend(items)
            if error is not None:
                self._errors[number] = self._exception(error)
        if pending:
            return pending.popleft()
        raise self._errors.pop(number)


def _is_name_pair(entry: object) -> bool:
    return (
        type(entry) is list and len(entry) == 2 and type(entry[0]) is str and entry[0].isidentifier()
        and (entry[1] is None or type(entry[1]) is str)
    )  # fmt: skip


def _builtin_exception(name: str) -> type[Exception]:
    kind = getattr(builtins, name, None)
    return kind if isinstance(kind, type) and issubclass(kind, Exception) else SandboxRaised
