"""The terminal reward: does the action (and, multi-turn, the answer) do what the user's request asked?

Each row of a terminal dataset (``rusty_hf.data.terminal.dataset.Request.row``) carries its fixture and
its checks as JSON. A completion's first action is judged by executing it on a fresh copy of the
fixture, in the sandbox, exactly as the evaluation does (``rusty_hf.data.terminal.checks.judge``).

Score per completion::

    1.0          the check passes (multi-turn rows: half for the first action, half for the final MSG)
    type_credit  the right kind of action (CMD, EDIT or MSG) that does not do the job (default 0.2)
    0.0          anything else, an invalid action included
    None         a row without a terminal check (a coding task in a mixed dataset)

One turn (a string completion, GRPO) judges the first action; a conversational completion (the
multi-turn ``TerminalEnv``: tool calls then a final message) judges its first tool call and, for a
multi-turn request, its last message. Registered as ``terminal``::

    reward_funcs: [terminal, protocol]
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rusty_hf.protocol import Action, ProtocolError, parse_action
from rusty_hf.rewards.extract import _call_as_action, completion_text

logger = logging.getLogger(__name__)
DEFAULT_CACHE_DIR = "outputs/terminal_fixtures"


def _action(text: str) -> Action | None:
    try:
        return parse_action(text)
    except ProtocolError:
        return None


def _turns(completion: str | Sequence[Mapping]) -> tuple[Action | None, Action | None]:
    """(first action, last action) of a completion: the same for one turn; tool calls count as actions."""
    if isinstance(completion, str):
        action = _action(completion_text(completion))  # without a copy pointer's markers (`protocol.pointers`)
        return action, action
    actions = []
    for message in completion:
        if message.get("role", "assistant") != "assistant":
            continue
        # each call as the action it was parsed from, without a copy pointer's markers
        actions += [_action(_call_as_action(call)) for call in message.get("tool_calls") or []]
        if message.get("content"):
            actions.append(_action(completion_text([message])))
    return (actions[0], actions[-1]) if actions else (None, None)


def score_completion(completion, check: str, final_check: str, fixture: str, cache_dir: str, type_credit: float) -> float | None:
    """The reward of one completion (see the module docstring)."""
    # Imported here: the checks run through rusty_hf.agent, which imports the Rust toolchain finder from
    # this package; a module-level import would close that circle at `import rusty_hf.rewards`.
    from rusty_hf.data.terminal.checks import Check, judge
    from rusty_hf.data.terminal.dataset import fixture_from_row
    from rusty_hf.data.terminal.fixtures import materialize

    if not check:
        return None
    root = materialize(fixture_from_row(fixture), cache_dir)
    first, last = _turns(completion)
    first_check = Check.from_json(check)

    def part(ch, action: Action | None) -> float:
        if action is None:
            return 0.0
        if judge(ch, action, root).ok:
            return 1.0
        right_type = (action.action == "MSG") == (ch.kind == "msg")
        return type_credit if right_type else 0.0

    score = part(first_check, first)
    if final_check and not isinstance(completion, str):
        score = 0.5 * score + 0.5 * part(Check.from_json(final_check), last if last is not first else None)
    return score


def get_terminal_reward(cache_dir: str | Path = DEFAULT_CACHE_DIR, type_credit: float = 0.2, max_workers: int = 2) -> Callable:
    """Build a terminal reward whose fixtures live in ``cache_dir``; ``max_workers`` sandbox runs at once."""
    if not 0 <= type_credit < 1:
        raise ValueError(f"type_credit must be in [0, 1), got {type_credit}")
    score = functools.partial(score_completion, cache_dir=str(cache_dir), type_credit=type_credit)

    def terminal_reward(completions: Sequence, check: Sequence[str] | None = None, final_check: Sequence[str] | None = None,
                        fixture: Sequence[str] | None = None, **kwargs) -> list[float | None]:  # fmt: skip
        """Score terminal requests by executing the first action (and judging the final answer) on the request's fixture.

        Args:
            completions: strings (one turn) or message lists (multi-turn, with tool calls).
            check, final_check, fixture: the terminal dataset's columns ("" on rows that are not terminal requests).
            **kwargs: other columns and TRL's extras (``log_metric`` gets ``terminal/success_rate``).

        Returns:
            One reward per completion, None for rows without a terminal check.
        """
        n = len(completions)
        checks, finals, fixtures = check or [""] * n, final_check or [""] * n, fixture or [""] * n

        def safe(i: int) -> float | None:
            try:
                return score(completions[i], checks[i], finals[i], fixtures[i])
            except Exception as exc:  # a broken row must not stop training
                logger.warning("terminal_reward: sample skipped (reward None): %s: %s", type(exc).__name__, exc)
                return None

        with ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
            rewards = list(pool.map(safe, range(n)))
        scored = [r for r in rewards if r is not None]
        log_metric = kwargs.get("log_metric")
        if callable(log_metric) and scored:
            log_metric("terminal/success_rate", sum(r >= 1.0 for r in scored) / len(scored))
        return rewards

    return terminal_reward


terminal_reward = get_terminal_reward()
