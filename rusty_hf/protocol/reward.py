"""The protocol reward: does a completion hold exactly one valid Rusty action?

Score per completion::

    1.0                  a valid action (`parse_action` accepts it)
    SCHEMA_CREDIT (0.5)  a JSON object that breaks the schema (unknown action, missing/extra field,
                         a repeated key, wrong type, a field too long)
    NON_OBJECT_CREDIT    JSON, but not an object (a list, a string, a number)
       (0.25)
    0.0                  anything else: not JSON, trailing text or a second action, an over-long reply

The partial credits give a tiny model a gradient from "prose" to "JSON" to "the right JSON"; they stay
well below 1.0 so a valid action always wins. Registered as ``protocol`` in `rusty_hf.rewards`::

    from rusty_hf.rewards import get_reward_funcs
    trainer = GRPOTrainer(..., reward_funcs=get_reward_funcs(["execution", "protocol"]))

When TRL passes ``log_metric``, ``protocol/valid_rate`` (fraction of fully valid actions) is logged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rusty_hf.protocol.actions import ProtocolError, parse_action

VALID_CREDIT = 1.0
SCHEMA_CREDIT = 0.5
NON_OBJECT_CREDIT = 0.25
_SCHEMA_KINDS = frozenset({"unknown_action", "missing_field", "wrong_type", "too_long"})


def protocol_score(text: str) -> float:
    """Score one completion's text (see the module docstring)."""
    try:
        parse_action(text)
    except ProtocolError as err:
        if err.kind not in _SCHEMA_KINDS or err.value is None:
            return 0.0
        return SCHEMA_CREDIT if isinstance(err.value, dict) else NON_OBJECT_CREDIT
    return VALID_CREDIT


def protocol_reward(
    completions: Sequence[str | Sequence[Mapping[str, Any]]],
    log_metric: Callable[[str, float], None] | None = None,
    **kwargs: Any,
) -> list[float]:
    """TRL reward function: 1.0 per valid action, partial credit for JSON with a bad schema, else 0.

    Args:
        completions: strings, or chat-message lists (``[{"role": "assistant", "content": ...}]``).
        log_metric: TRL's metric logger; receives ``protocol/valid_rate``.
        **kwargs: other dataset columns and trainer arguments (ignored).

    Returns:
        One score per completion.

    >>> protocol_reward(['{"action": "MSG", "message": "hi"}', '{"action": "RUN"}', "[1]", "hello"])
    [1.0, 0.5, 0.25, 0.0]
    """
    # Imported here, not at the top: rusty_hf.rewards registers this function, so importing the package
    # from this module's import time would be circular when rusty_hf.protocol is imported first.
    from rusty_hf.rewards.extract import completion_text

    scores = [protocol_score(completion_text(c)) for c in completions]
    if callable(log_metric) and scores:
        log_metric("protocol/valid_rate", sum(s == VALID_CREDIT for s in scores) / len(scores))
    return scores
