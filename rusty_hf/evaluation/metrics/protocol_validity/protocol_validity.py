"""Protocol validity: the share of completions that are exactly one valid Rusty action, an `evaluate` metric.

A completion is valid when ``rusty_hf.protocol.parse_action`` accepts it: one JSON object, an
``action`` of MSG / CMD / EDIT with its fields, nothing after it. Invalid ones are counted by the
parser's error kind (not_json, unknown_action, missing_field, wrong_type, trailing_text, too_long),
valid ones by action, so a report shows *how* a model breaks the protocol, not only how often.

Usage (loaded by local path, nothing is fetched)::

    from rusty_hf.evaluation.metrics import load_metric
    validity = load_metric("protocol_validity")
    validity.compute(predictions=['{"action": "MSG", "message": "done"}', "Sure! Here it is"])
    # {'protocol_validity': 0.5, 'actions': {'MSG': 1}, 'errors': {'not_json': 1}, 'num_completions': 2}
"""

from __future__ import annotations

from collections import Counter

import datasets
import evaluate

from rusty_hf.protocol import ProtocolError, parse_action

_DESCRIPTION = "Share of completions that parse as exactly one valid Rusty protocol action (MSG, CMD or EDIT)."
_INPUTS = """
Args:
    predictions: the completions, as decoded text (strip the tokenizer's leading space first).
Returns:
    protocol_validity: valid completions / completions, in [0, 1];
    actions: {action: count} over the valid ones; errors: {error kind: count} over the others;
    num_completions: how many were scored.
"""


def classify(text: str) -> str:
    """The action of a valid completion (MSG, CMD, EDIT), or ``error:<kind>`` for an invalid one."""
    try:
        return parse_action(text).action
    except ProtocolError as exc:
        return f"error:{exc.kind}"


class ProtocolValidity(evaluate.Metric):
    """Protocol validity of completions; see the module docstring."""

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation="",
            inputs_description=_INPUTS,
            features=datasets.Features({"predictions": datasets.Value("string")}),
            license="agpl-3.0",
        )

    def _compute(self, predictions: list[str]) -> dict:
        if not predictions:
            raise ValueError("protocol_validity got no completions to score")
        labels = Counter(classify(text) for text in predictions)
        errors = {label.removeprefix("error:"): n for label, n in sorted(labels.items()) if label.startswith("error:")}
        actions = {label: n for label, n in sorted(labels.items()) if not label.startswith("error:")}
        return {
            "protocol_validity": sum(actions.values()) / len(predictions),
            "actions": actions,
            "errors": errors,
            "num_completions": len(predictions),
        }
