"""The wire format between the execution reward and a sandboxed solution: plain values as tagged JSON.

Standard library only: the reward also copies this file into the sandbox, where the solution's
side of the conversation imports it (``candidate_server.py``). One message is one line of JSON; a
value is

- ``null``, ``true``, ``false``, a number (a JSON integer is an ``int``, anything with a dot or an
  exponent a ``float``; ``NaN`` and ``Infinity`` allowed), a string: the value itself;
- a JSON array: a ``list``;
- a JSON object with exactly one key, its tag: ``{"t": [...]}`` tuple, ``{"s": [...]}`` set,
  ``{"f": [...]}`` frozenset, ``{"d": [[key, value], ...]}`` dict (in order), ``{"b": "<base64>"}``
  bytes, ``{"h": [id, kind, ...]}`` a handle: an object that stays where it lives (see ``remote.py``);
- host to sandbox only: ``{"r": [start, stop, step]}`` a range, ``{"c": [start, step]}`` an
  ``itertools.count``, ``{"i": [sequence, position]}`` an iterator over a list, tuple or string;
- sandbox to host only: ``{"a": n}``, "the call's n-th argument itself" (identity, not a copy).

Encoding checks types exactly (``type(x) is int``), so a subclass of int, str, list or dict, whatever
its dunder methods do, never travels as a value: it becomes a handle. Decoding builds only the
builtin types above and raises :class:`WireError` for anything else, so nothing decoded from the
sandbox has a method that runs its code. It also refuses containers whose elements share a hash
(a crafted set of colliding keys costs quadratic time to build, here or in a test that builds one),
more than :data:`MAX_BIG_INTS` integers of more than 18 digits in one message (they make such
collisions easy), and nesting deeper than the JSON parser's recursion limit.
"""

from __future__ import annotations

import binascii  # not base64: that module costs the sandbox's every start ~2 ms of imports
import itertools
import json
import re
from collections.abc import Callable

MAX_BIG_INTS = 1000
_SPREAD_CHECKED_ABOVE = 256  # containers up to this size are too small to hurt
_MAX_SHARED_HASH = 64
SCALARS = frozenset({type(None), bool, int, float, str})
HOST_TAGS = frozenset("tsfdbhrci")  # what the host may send
SANDBOX_TAGS = frozenset("tsfdbha")  # what the sandbox may send
_ITERABLE = {"t": tuple, "s": set, "f": frozenset}
_BIG_INT = re.compile(rb"[0-9]{19}")
_WALKED_ABOVE = 16 << 10  # shorter messages cannot hold enough colliding elements to matter


class WireError(ValueError):
    """A message that does not follow the wire format."""


def encode(value: object, special: Callable[[object], object | None]) -> object:
    """``value`` as JSON-ready data. ``special(x)`` is asked first about every value that is not a
    scalar: it returns the tagged form (a handle, an argument reference) or None for "encode as data",
    and must give handles for every type this format does not carry."""
    kind = type(value)
    if kind in SCALARS:
        return value
    tagged = special(value)
    if tagged is not None:
        return tagged
    if kind is list:
        if set(map(type, value)) <= SCALARS:
            return list(value)  # the common flat case, without a call per item
        return [encode(item, special) for item in value]
    if kind is tuple:
        return {"t": [encode(item, special) for item in value]}
    if kind is set or kind is frozenset:
        return {"s" if kind is set else "f": [encode(item, special) for item in value]}
    if kind is dict:
        return {"d": [[encode(k, special), encode(v, special)] for k, v in value.items()]}
    if kind is bytes:
        return {"b": binascii.b2a_base64(value, newline=False).decode("ascii")}
    raise TypeError(f"a {kind.__name__} cannot travel as a plain value")


def dumps(message: object) -> bytes:
    """One message (already encoded) as a line of bytes."""
    return json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def _check_spread(items: list) -> None:
    """Refuse ``items`` when many distinct tuples or frozensets among them share a hash. Only those
    can: strings and bytes hash with a per-process key, a float shares its hash with a handful of
    others at most, an int below 2**61 hashes to itself, and longer ints are few (MAX_BIG_INTS)."""
    if len(items) <= _SPREAD_CHECKED_ABOVE or not {tuple, frozenset} & set(map(type, items)):
        return
    first: dict[int, object] = {}
    others: dict[int, int] = {}
    for item in items:
        if type(item) is tuple or type(item) is frozenset:
            try:
                low = hash(item) & 0xFFFFFFFF  # keys below 2**32 hash to themselves: no collisions here
            except TypeError:  # holds a list
                continue
            seen = first.setdefault(low, item)
            if seen is not item and seen != item:
                others[low] = others.get(low, 0) + 1
                if others[low] > _MAX_SHARED_HASH:
                    raise WireError(f"more than {_MAX_SHARED_HASH} distinct elements share a hash")


def loads(
    line: bytes,
    tags: frozenset[str],
    handle: Callable[[list], object] | None = None,
    argument: Callable[[int], object] | None = None,
    checked: bool = True,
) -> object:
    """Decode one message, accepting only ``tags``; ``handle(payload)`` and ``argument(n)`` resolve
    the ``h`` and ``a`` tags. Raises WireError for anything malformed or over a limit. ``checked``
    False skips the checks against quadratic sets (for the sandbox, reading what the host sent)."""
    # Counted in the raw line (digits in strings too: conservative), and only where there is room for them.
    if checked and len(line) > 19 * MAX_BIG_INTS and len(_BIG_INT.findall(line)) > MAX_BIG_INTS:
        raise WireError(f"more than {MAX_BIG_INTS} integers of more than 18 digits")

    def tagged(pairs: list[tuple[str, object]]) -> object:
        if len(pairs) != 1 or pairs[0][0] not in tags:
            raise WireError(f"an object must hold one known tag, got {[k for k, _ in pairs][:3]}")
        tag, payload = pairs[0]
        return _untag(tag, payload, handle, argument, checked)

    try:
        value = json.loads(line, object_pairs_hook=tagged)  # the interpreter's cap on digits applies
    except WireError:
        raise
    except (ValueError, TypeError, RecursionError, MemoryError, UnicodeDecodeError) as exc:
        raise WireError(f"{type(exc).__name__}: {str(exc)[:100]}") from None
    if checked and len(line) > _WALKED_ABOVE:
        _check_sequences(value)
    return value


def _check_sequences(value: object) -> None:
    """Check the lists and tuples inside ``value`` (sets and dicts are checked before they are built)."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is list or kind is tuple:
            _check_spread(item)
            if _CONTAINERS & set(map(type, item)):  # a C-speed look first: most lists hold scalars
                stack.extend(v for v in item if type(v) in _CONTAINERS)
        elif kind is dict:
            stack.extend(v for v in item.values() if type(v) in _CONTAINERS)
        elif kind is set or kind is frozenset:
            stack.extend(v for v in item if type(v) is tuple or type(v) is frozenset)


_CONTAINERS = frozenset({list, tuple, dict, set, frozenset})


def _untag(tag: str, payload: object, handle, argument, checked: bool) -> object:
    if tag in _ITERABLE or tag == "d":
        if type(payload) is not list:
            raise WireError(f"tag {tag!r} needs an array")
        if tag == "d":
            if not all(type(pair) is list and len(pair) == 2 for pair in payload):
                raise WireError("a dict is an array of [key, value] pairs")
            if checked:
                _check_spread([pair[0] for pair in payload])  # before hashing them into a dict
            return dict(payload)
        if tag != "t" and checked:
            _check_spread(payload)
        return _ITERABLE[tag](payload)
    if tag == "b" and type(payload) is str:
        return binascii.a2b_base64(payload, strict_mode=True)
    if tag == "h" and handle is not None and type(payload) is list and payload and type(payload[0]) is int:
        return handle(payload)
    if tag == "a" and argument is not None and type(payload) is int:
        return argument(payload)
    if tag == "r" and type(payload) is list and len(payload) == 3 and all(type(v) is int for v in payload):
        return range(*payload)
    if tag == "c" and type(payload) is list and len(payload) == 2 and all(type(v) in (int, float) for v in payload):
        return itertools.count(*payload)
    if tag == "i" and type(payload) is list and len(payload) == 2 and type(payload[1]) is int:
        sequence, position = payload
        if type(sequence) not in (list, tuple, str):
            raise WireError("an iterator travels over a list, tuple or string")
        iterator = iter(sequence)
        iterator.__setstate__(position)
        return iterator
    raise WireError(f"malformed {tag!r} value")
