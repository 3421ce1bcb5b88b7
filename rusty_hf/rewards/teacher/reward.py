"""The teacher reward (RLAIF): a stronger model grades each completion 0-10 with a rubric.

``get_teacher_reward(TeacherConfig(...))`` returns an ``async`` TRL reward function named
``teacher_reward``; TRL runs async rewards concurrently with the others on its event-loop
thread. For each batch it:

1. renders every (prompt, completion) pair as a grading request (:mod:`.rubric`),
2. answers what it can from the sqlite cache (:mod:`.cache`) -- keyed by teacher,
   rubric, prompt and completion -- and sends each remaining distinct pair once,
3. calls the teacher (:mod:`.backends`) with at most ``max_concurrency`` requests in
   flight, a per-request timeout, and ``max_retries`` retries with exponential backoff (and
   jitter, honouring ``Retry-After``) for failures that can pass (timeouts, refused connections,
   429, 5xx),
4. returns ``score / 10`` (``normalize=False``: the raw 0-10), or ``None`` for a sample whose
   teacher call failed or whose answer broke the format -- TRL then leaves that sample out of
   this reward. A failing teacher is counted and logged, never raised.

It logs ``teacher/failures``, ``teacher/cache_hits`` and ``teacher/requests`` (counts per batch)
through TRL's ``log_metric``, the teacher's reasons as the ``teacher_reason`` completions column,
and keeps running totals in ``teacher_reward.stats``.

Usage::

    from rusty_hf.rewards.teacher import TeacherConfig, get_teacher_reward
    teacher = get_teacher_reward(TeacherConfig(backend="openai", model="Qwen/Qwen3-8B",
                                               base_url="http://127.0.0.1:8000/v1"))
    GRPOTrainer(..., reward_funcs=[execution_reward, teacher])
    # outside TRL: asyncio.run(teacher(prompts=[...], completions=[...]))

From recipe YAML (``reward_funcs: [teacher]``) the teacher is configured by environment
variables, see :func:`teacher_config_from_env`.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from rusty_hf.rewards.extract import completion_text
from rusty_hf.rewards.teacher.backends import (
    AnthropicBackend,
    Complete,
    LocalBackend,
    OpenAIChatBackend,
    TeacherBackend,
    TeacherError,
)
from rusty_hf.rewards.teacher.cache import TeacherCache, cache_key
from rusty_hf.rewards.teacher.config import TeacherConfig, teacher_config_from_env
from rusty_hf.rewards.teacher.rubric import (
    MAX_SCORE,
    TeacherVerdict,
    build_teacher_messages,
    parse_teacher_answer,
    prompt_text,
)

logger = logging.getLogger(__name__)

__all__ = ["TeacherConfig", "get_teacher_reward", "make_backend", "teacher_config_from_env", "teacher_reward_from_env"]


def make_backend(config: TeacherConfig) -> TeacherBackend:
    """Build the back end ``config`` names (loading the model now for ``backend="local"``)."""
    if config.backend == "local":
        return LocalBackend(config.model, max_new_tokens=config.max_tokens, trust_remote_code=config.trust_remote_code)
    cls = OpenAIChatBackend if config.backend == "openai" else AnthropicBackend
    return cls(
        model=config.model,
        base_url=config.base_url,
        api_key=config.api_key(),
        timeout=config.timeout,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        extra_body=config.extra_body,
        max_connections=config.max_concurrency,
    )


async def _ask(complete: Complete, system: str, user: str, config: TeacherConfig, stats: Counter) -> str:
    """One teacher call with retries; raises the last TeacherError when they run out."""
    for attempt in range(config.max_retries + 1):
        stats["requests"] += 1
        try:
            return await complete(system, user)
        except TeacherError as exc:
            if not exc.retryable or attempt == config.max_retries:
                raise
            delay = exc.retry_after if exc.retry_after is not None else config.backoff * 2**attempt
            # Jitter spreads the retries of a batch that failed together (a restarting server).
            await asyncio.sleep(min(delay, config.max_backoff) * random.uniform(1.0, 1.25))
    raise AssertionError("unreachable")


async def _judge(
    complete: Complete, pair: tuple[str, str], config: TeacherConfig, limit: asyncio.Semaphore, batch: Counter
) -> tuple[TeacherVerdict | None, str]:
    """Grade one (prompt, completion); return (verdict, "ok") or (None, failure kind: message)."""
    system, user = build_teacher_messages(*pair, rubric=config.rubric)
    async with limit:  # held through the retries too: a struggling teacher gets no extra load
        try:
            answer = await _ask(complete, system, user, config, batch)
        except TeacherError as exc:
            return None, f"{exc.kind}: {exc}"
        except Exception as exc:  # a local model that raised, a bug in a back end: still not a crash
            return None, f"error: {type(exc).__name__}: {exc}"
    verdict = parse_teacher_answer(answer)
    return (verdict, "ok") if verdict is not None else (None, f"bad_answer: {answer[:120]!r}")


def _report(failures: list[str], total: int, batch: Counter) -> None:
    kinds = Counter(f.split(":", 1)[0] for f in failures)
    for kind, n in kinds.items():
        batch[f"failures/{kind}"] += n
    logger.warning(
        "teacher_reward: %d of %d grading requests failed, those samples get reward None: %s; first: %s",
        len(failures),
        total,
        dict(kinds),
        failures[0][:300],
    )


async def _grade_all(
    backend: TeacherBackend, pairs: list[tuple[str, str]], config: TeacherConfig, batch: Counter
) -> list[TeacherVerdict | None]:
    """Grade distinct (prompt, completion) pairs concurrently in one session; None where it failed."""
    limit = asyncio.Semaphore(config.max_concurrency)
    try:
        async with backend.session() as complete:
            outcomes = await asyncio.gather(*(_judge(complete, pair, config, limit, batch) for pair in pairs))
    except Exception as exc:  # the session itself broke (opening or closing the client)
        outcomes = [(None, f"error: {type(exc).__name__}: {exc}")] * len(pairs)
    failed = [why for verdict, why in outcomes if verdict is None]
    if failed:
        _report(failed, len(pairs), batch)
    return [verdict for verdict, _ in outcomes]


def get_teacher_reward(config: TeacherConfig, backend: TeacherBackend | None = None) -> Callable[..., Any]:
    """Build the async teacher reward for ``config``.

    Args:
        config: back end, model, endpoint, rubric, timeouts, retries, concurrency, cache.
        backend: use this back end instead of building one from ``config`` (e.g. a
            ``LocalBackend`` around a model already in memory).

    Returns:
        An ``async`` TRL reward function named ``teacher_reward``, with running totals in its
        ``stats`` attribute (requests, cache_hits, scored, failures, failures/<kind>).
    """
    backend = backend if backend is not None else make_backend(config)
    cache = TeacherCache(config.cache_path) if config.cache_path else None
    stats: Counter = Counter()

    async def teacher_reward(
        prompts: Sequence | None = None, completions: Sequence = (), **kwargs: Any
    ) -> list[float | None]:
        """Grade each completion with the teacher.

        Args:
            prompts: the prompts (strings or chat messages); the teacher sees them as the task.
            completions: the completions (strings or chat messages), one per prompt.
            **kwargs: dataset columns (unused) and TRL's ``log_metric`` / ``log_extra``.

        Returns:
            One reward per completion: score / 10 (raw 0-10 with ``normalize=False``), or None
            where the teacher failed or answered out of format.
        """
        if prompts is not None and len(prompts) != len(completions):
            raise ValueError(f"got {len(completions)} completions but {len(prompts)} prompts")
        pairs = [
            (prompt_text(prompts[i] if prompts is not None else None), completion_text(c))
            for i, c in enumerate(completions)
        ]
        keys = [cache_key(teacher=backend.identity, rubric=config.rubric, prompt=p, completion=c) for p, c in pairs]
        verdicts: dict[str, TeacherVerdict | None] = await _cached(cache, keys) if cache is not None else {}
        batch: Counter = Counter(cache_hits=sum(k in verdicts for k in keys))
        todo = [k for k in dict.fromkeys(keys) if k not in verdicts]  # distinct pairs, each asked once
        if todo:
            new = await _grade_all(backend, [pairs[keys.index(k)] for k in todo], config, batch)
            verdicts.update(zip(todo, new))
            if cache is not None:
                await _store(cache, {k: v for k, v in zip(todo, new) if v is not None})
        batch["failures"] = sum(verdicts[k] is None for k in keys)  # per sample, like cache_hits
        batch["scored"] = len(keys) - batch["failures"]
        stats.update(batch)
        _log(kwargs, [verdicts[k] for k in keys], batch)
        scale = MAX_SCORE if config.normalize else 1
        return [None if verdicts[k] is None else verdicts[k].score / scale for k in keys]

    teacher_reward.stats = stats
    teacher_reward.config = config
    teacher_reward.backend = backend
    return teacher_reward


async def _cached(cache: TeacherCache, keys: list[str]) -> dict[str, TeacherVerdict]:
    try:  # a thread: sqlite may wait on another process's write lock
        found = await asyncio.to_thread(cache.get_many, keys)
    except Exception as exc:  # a broken cache costs teacher calls, not the run
        logger.warning("teacher_reward: cache read failed, asking the teacher: %s", exc)
        return {}
    return {k: TeacherVerdict(score, reason) for k, (score, reason) in found.items()}


async def _store(cache: TeacherCache, verdicts: dict[str, TeacherVerdict]) -> None:
    try:
        await asyncio.to_thread(cache.put_many, {k: (v.score, v.reason) for k, v in verdicts.items()})
    except Exception as exc:
        logger.warning("teacher_reward: cache write failed (scores kept for this batch only): %s", exc)


def _log(kwargs: dict, verdicts: list[TeacherVerdict | None], batch: Counter) -> None:
    log_metric, log_extra = kwargs.get("log_metric"), kwargs.get("log_extra")
    if callable(log_metric):  # counts for this batch; TRL averages them over a logging step
        for name in ("failures", "cache_hits", "requests"):
            log_metric(f"teacher/{name}", batch[name])
    if callable(log_extra):
        log_extra("teacher_reason", ["" if v is None else v.reason for v in verdicts])


def teacher_reward_from_env() -> Callable[..., Any]:
    """The registry's ``teacher`` entry: a teacher reward configured by RUSTY_TEACHER_* variables."""
    return get_teacher_reward(teacher_config_from_env())
