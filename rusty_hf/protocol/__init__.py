"""Rusty's JSON action protocol: schema, strict parser, reward and constrained decoding.

A package of three concepts (each module says more):

- `rusty_hf.protocol.actions`: `Action`, `ACTION_SCHEMA`, `parse_action`, `ProtocolError` (with its
  ``kind`` and ``correction_message``);
- `rusty_hf.protocol.reward`: `protocol_reward`, the TRL reward registered as ``protocol``;
- `rusty_hf.protocol.constrained`: `ProtocolLogitsProcessor`, which lets ``model.generate`` emit only
  valid actions (on top of `rusty_hf.protocol.automaton`, the grammar as a byte-level DFA, and
  `rusty_hf.protocol.vocabulary`, that DFA stepped over every token).

Usage::

    from rusty_hf.protocol import parse_action, ProtocolError, ProtocolLogitsProcessor
"""

from rusty_hf.protocol.actions import (
    ACTION_FIELDS,
    ACTION_SCHEMA,
    ACTION_SHAPES,
    ERROR_KINDS,
    MAX_FIELD_CHARS,
    MAX_TEXT_CHARS,
    Action,
    ProtocolError,
    parse_action,
)
from rusty_hf.protocol.constrained import ProtocolLogitsProcessor
from rusty_hf.protocol.reward import NON_OBJECT_CREDIT, SCHEMA_CREDIT, protocol_reward

__all__ = [
    "ACTION_FIELDS",
    "ACTION_SCHEMA",
    "ACTION_SHAPES",
    "ERROR_KINDS",
    "MAX_FIELD_CHARS",
    "MAX_TEXT_CHARS",
    "NON_OBJECT_CREDIT",
    "SCHEMA_CREDIT",
    "Action",
    "ProtocolError",
    "ProtocolLogitsProcessor",
    "parse_action",
    "protocol_reward",
]
