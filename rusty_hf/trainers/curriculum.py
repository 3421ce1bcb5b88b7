"""Curriculum by task difficulty for TRL's online trainers (GRPO, RLOO, and our PPOTrainer).

Rows carry an int ``difficulty`` column (1..5 in ``tasks/``). Training starts on the lowest
level; once the rolling pass rate (the mean of the last ``window`` logged values of
``execution/pass_rate``, or another metric) reaches ``threshold``, the next level is unlocked.
Unlocked levels stay in the pool, so easy tasks keep being rehearsed.

Three pieces, because a callback cannot change what a running trainer samples on its own:

* :class:`CurriculumState` -- which levels are unlocked; shared by the sampler and the callback.
* :class:`CurriculumSampler` -- a drop-in for TRL's ``RepeatSampler`` that draws every generation
  batch from the unlocked rows. It reads the state lazily, once per generation batch, so a
  promotion takes effect on the next batch the dataloader fetches.
* :class:`CurriculumMixin` -- overrides only ``_get_train_sampler`` to install that sampler.

Usage::

    from trl import GRPOConfig
    from rusty_hf.trainers import CurriculumGRPOTrainer, CurriculumCallback

    trainer = CurriculumGRPOTrainer(model=..., reward_funcs=..., args=GRPOConfig(...), train_dataset=tasks)
    trainer.add_callback(CurriculumCallback(trainer, threshold=0.6, window=8))
    trainer.train()  # logs curriculum/level

    class CurriculumPPOTrainer(CurriculumMixin, PPOTrainer): ...  # any GRPOTrainer subclass

Timing: accelerate's dataloader fetches one batch ahead (and ``dataloader_num_workers > 0``
prefetches more), so a promotion decided at step k shows up in the prompts of step k+2 at the
earliest with one generation batch per step.

Across processes: every process holds its own sampler with the same seed, and TRL gathers reward
metrics across processes before they are logged (``_generate_and_score_completions`` averages
``log_metric`` values with ``accelerator.gather``), so every process sees the same logs, makes the
same promotion at the same step, and draws the same indices -- the invariant ``RepeatSampler``
relies on to keep a prompt's generations together.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils.data import Sampler
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments
from trl import GRPOTrainer, RLOOTrainer

from rusty_hf.trainers.log_records import is_train_log, record_metric

logger = logging.getLogger(__name__)


@dataclass
class CurriculumState:
    """The difficulty levels present in the data and how many of the lowest are unlocked."""

    difficulties: tuple[int, ...]  # one per dataset row
    levels: tuple[int, ...] = field(init=False, default=())  # distinct difficulties, ascending
    unlocked: int = 1
    promotions: list[tuple[int, int]] = field(default_factory=list)  # (global_step, new level)

    def __post_init__(self) -> None:
        self.levels = tuple(sorted(set(self.difficulties)))
        if not self.levels:
            raise ValueError("the curriculum needs a non-empty training dataset")
        if not 1 <= self.unlocked <= len(self.levels):
            raise ValueError(f"unlocked must be in 1..{len(self.levels)}, got {self.unlocked}")

    @classmethod
    def from_dataset(cls, dataset: Any, column: str = "difficulty", start_level: int | None = None) -> CurriculumState:
        """Read ``column`` from a map-style dataset; unlock every level <= ``start_level`` (default: the lowest)."""
        names = getattr(dataset, "column_names", None)
        if names is None or not hasattr(dataset, "__getitem__"):
            raise TypeError(
                f"the curriculum samples rows by index, so it needs a map-style datasets.Dataset, got "
                f"{type(dataset).__name__}; load the tasks with rusty_hf.data.tasks.load_tasks()"
            )
        if column not in names:
            raise ValueError(f"the curriculum needs a '{column}' column (int levels); the dataset has {names}")
        values = dataset[column]
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int)]
        if bad:
            raise ValueError(f"'{column}' must hold ints, found {bad[0]!r}; cast the column with dataset.cast_column")
        state = cls(tuple(values))
        if start_level is not None:
            state.unlocked = max(1, sum(level <= start_level for level in state.levels))
        return state

    @property
    def level(self) -> int:
        """The hardest unlocked difficulty."""
        return self.levels[self.unlocked - 1]

    @property
    def at_top(self) -> bool:
        return self.unlocked == len(self.levels)

    def pool(self) -> list[int]:
        """Row indices of the unlocked levels."""
        return [i for i, d in enumerate(self.difficulties) if d <= self.level]

    def promote(self, step: int) -> bool:
        """Unlock the next level; False when every level is already unlocked."""
        if self.at_top:
            return False
        self.unlocked += 1
        self.promotions.append((step, self.level))
        return True


class CurriculumSampler(Sampler[int]):
    """``RepeatSampler``'s index layout, each generation batch drawn from the unlocked rows.

    Like TRL's sampler it yields ``batch_size`` prompts per chunk (distinct while at least that
    many rows are unlocked), each repeated ``mini_repeat_count`` times, and the chunk
    ``repeat_count`` times. An epoch has as many
    chunks as ``RepeatSampler`` would over the whole dataset, so ``len()`` (which Trainer uses to
    count steps and epochs) does not change when a level unlocks. Unlocked rows are visited in a
    seeded random order, reshuffled when exhausted or when the pool grows.
    """

    def __init__(
        self,
        state: CurriculumState,
        mini_repeat_count: int,
        batch_size: int = 1,
        repeat_count: int = 1,
        shuffle: bool = True,
        seed: int | None = None,
    ):
        self.state = state
        self.mini_repeat_count = mini_repeat_count
        self.batch_size = batch_size
        self.repeat_count = repeat_count
        self.shuffle = shuffle
        self.generator = torch.Generator()
        if seed is not None:
            self.generator.manual_seed(seed)

    def __len__(self) -> int:
        n = len(self.state.difficulties)
        return (n // self.batch_size) * self.batch_size * self.mini_repeat_count * self.repeat_count

    def _order(self, pool: list[int]) -> list[int]:
        if not self.shuffle:
            return list(reversed(pool))  # popped from the end: ascending order
        return [pool[i] for i in torch.randperm(len(pool), generator=self.generator).tolist()]

    def __iter__(self) -> Iterator[int]:
        order: list[int] = []
        level = None
        for _ in range(len(self.state.difficulties) // self.batch_size):
            if self.state.level != level:  # read once per chunk: a group never straddles a promotion
                level = self.state.level
                pool = self.state.pool()
                order = self._order(pool)
            chunk = []
            while len(chunk) < self.batch_size:
                if not order:  # a new pass; rows already in this chunk are drawn last (stable sort)
                    order = sorted(self._order(pool), key=lambda i: i not in chunk)
                chunk.append(order.pop())
            for _ in range(self.repeat_count):
                for index in chunk:
                    for _ in range(self.mini_repeat_count):
                        yield index


class CurriculumMixin:
    """Put before a TRL online trainer in the bases: ``class T(CurriculumMixin, GRPOTrainer)``.

    Without a curriculum state (no :class:`CurriculumCallback` attached) it samples exactly like
    the base trainer.
    """

    curriculum_state: CurriculumState | None = None

    # Overrides GRPOTrainer/RLOOTrainer._get_train_sampler, the one place the train sampler is
    # built (get_train_dataloader passes it to Trainer._get_dataloader, which accelerate wraps).
    # Same arguments as TRL's RepeatSampler, so generation batching and num_iterations reuse
    # behave as upstream.
    def _get_train_sampler(self, dataset: Any = None) -> Sampler:
        if self.curriculum_state is None:
            return super()._get_train_sampler(dataset)
        if dataset is not None and len(dataset) != len(self.curriculum_state.difficulties):
            raise ValueError(
                "trainer.train_dataset changed size after the CurriculumCallback read its difficulties; "
                "attach the callback after the last change to the dataset"
            )
        return CurriculumSampler(
            self.curriculum_state,
            mini_repeat_count=self.num_generations,
            batch_size=self.args.generation_batch_size // self.num_generations,
            repeat_count=self.num_iterations * self.args.steps_per_generation,
            shuffle=self.shuffle_dataset,
            seed=self.args.seed,
        )


class CurriculumGRPOTrainer(CurriculumMixin, GRPOTrainer):
    """TRL's GRPOTrainer whose prompts follow a :class:`CurriculumCallback`."""


class CurriculumRLOOTrainer(CurriculumMixin, RLOOTrainer):
    """TRL's RLOOTrainer whose prompts follow a :class:`CurriculumCallback`."""


class CurriculumCallback(TrainerCallback):
    """Promote to the next difficulty when the rolling mean of ``metric`` reaches ``threshold``.

    Takes the trainer (a :class:`CurriculumMixin` subclass, built but not yet trained) because it
    installs the shared :class:`CurriculumState` that the trainer's sampler reads.

    Args:
        trainer: e.g. a :class:`CurriculumGRPOTrainer`.
        threshold: promote when the window's mean ``metric`` is >= this.
        window: how many recent logged values the mean covers; it restarts after a promotion.
        metric: a logged key; ``execution/pass_rate`` comes from the execution reward.
        column: the dataset's int difficulty column.
        start_level: unlock every level <= this at the start (default: only the lowest).
    """

    def __init__(
        self,
        trainer: Any,
        threshold: float = 0.5,
        window: int = 8,
        metric: str = "execution/pass_rate",
        column: str = "difficulty",
        start_level: int | None = None,
    ):
        if not isinstance(trainer, CurriculumMixin):
            raise TypeError(
                f"{type(trainer).__name__} samples prompts its own way; use CurriculumGRPOTrainer, "
                "CurriculumRLOOTrainer, or a subclass `class T(CurriculumMixin, YourTrainer)`"
            )
        if window < 1:
            raise ValueError(f"curriculum window must be >= 1 logged steps, got {window}")
        self.trainer = trainer
        self.threshold = threshold
        self.metric = metric
        self.recent: deque[float] = deque(maxlen=window)
        self.state = CurriculumState.from_dataset(trainer.train_dataset, column, start_level)
        self._seen_metric = False
        trainer.curriculum_state = self.state

    def on_step_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        record_metric(self.trainer, "curriculum/level", self.state.level, replace=True)

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, logs=None, **kwargs):
        value = (logs or {}).get(self.metric)
        if not is_train_log(logs) or value is None:
            return
        self._seen_metric = True
        self.recent.append(float(value))
        full = len(self.recent) == self.recent.maxlen
        if full and sum(self.recent) / len(self.recent) >= self.threshold and self.state.promote(state.global_step):
            logger.info(
                "curriculum: step %d, %s reached %.3f: level %d unlocked",
                state.global_step,
                self.metric,
                sum(self.recent) / len(self.recent),
                self.state.level,
            )
            self.recent.clear()

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        if not self._seen_metric:
            logger.warning(
                "curriculum: '%s' was never logged, so no level was unlocked; pass metric= one of the logged "
                "keys (e.g. execution/pass_rate from the execution reward)",
                self.metric,
            )
