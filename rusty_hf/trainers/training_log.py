"""A CSV of the RL run (``rl_training.log``), a PNG of its reward, KL and loss curves, and a summary of both.

Both read what TRL's online trainers log each step, on the main process only::

    trainer.add_callback(TrainingLogCallback(reward_names=trainer.reward_func_names))
    trainer.add_callback(TrainingCurvesCallback())

``rl_training.log`` in ``output_dir`` has the header
``iteration,avg_reward,reward_std,compile_success_rate,parse_success_rate,kl,loss,<reward name>...``
and one row per logged training step; a metric absent from that step's log is an empty cell.
The reward columns hold TRL's ``rewards/<name>/mean``. A resumed run appends to the file.

``training_curves.png`` (matplotlib's Agg canvas, no display needed) is written at train end;
:func:`plot_training_curves` draws the same figure from any ``trainer.state.log_history``: the reward
per step with its rolling mean, the KL to the reference model and the loss. :func:`summarise_log`
states the same in one line for the model card (reward's rolling mean at the start and the end, KL and
loss at their largest and last).
"""

from __future__ import annotations

import csv
import logging
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from rusty_hf.trainers.log_records import is_train_log

logger = logging.getLogger(__name__)

LOG_FILENAME = "rl_training.log"
CURVES_FILENAME = "training_curves.png"
# CSV column -> logged keys, first present wins (each reward module logs its own metrics): a
# Python run's parse rate comes from the execution reward, a Rust-only run's from the Rust reward.
METRIC_COLUMNS: dict[str, tuple[str, ...]] = {
    "avg_reward": ("reward",),
    "reward_std": ("reward_std",),
    "compile_success_rate": ("rust/compile_rate",),
    "parse_success_rate": ("execution/parse_rate", "rust/parse_rate"),
    "kl": ("kl",),
    "loss": ("loss",),
}
ROLLING = 10  # steps in the reward's rolling mean (a GRPO step's reward is a mean over a handful of prompts)
_REWARD_MEAN = re.compile(r"^rewards/(.+)/mean$")


def _cell(value: object) -> str:
    if value is None or not isinstance(value, (int, float)) or math.isnan(value):
        return ""
    return f"{value:.6g}"


class TrainingLogCallback(TrainerCallback):
    """Append one CSV row per logged training step to ``<output_dir>/rl_training.log``.

    Args:
        output_dir: where to write; defaults to the trainer's ``args.output_dir``.
        reward_names: the reward columns (``trainer.reward_func_names``); when None they are read
            from the first training log's ``rewards/<name>/mean`` keys.
        columns: override :data:`METRIC_COLUMNS` (column -> candidate logged keys).
    """

    def __init__(
        self,
        output_dir: str | Path | None = None,
        reward_names: Sequence[str] | None = None,
        columns: Mapping[str, Sequence[str]] | None = None,
    ):
        self.output_dir = output_dir
        self.reward_names = list(reward_names) if reward_names is not None else None
        self.columns = dict(columns if columns is not None else METRIC_COLUMNS)
        self.path: Path | None = None
        self._fresh = True

    @property
    def header(self) -> list[str]:
        return ["iteration", *self.columns, *(self.reward_names or [])]

    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        self.path = Path(self.output_dir or args.output_dir) / LOG_FILENAME
        # A resumed run (global_step restored from the checkpoint) keeps the rows it already has.
        self._fresh = state.global_step == 0 or not self.path.exists()

    def on_log(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, logs=None, **kwargs):
        if not state.is_world_process_zero or not is_train_log(logs):
            return
        if self.path is None:  # driven without on_train_begin
            self.on_train_begin(args, state, control)
        if self.reward_names is None:
            self.reward_names = sorted(m.group(1) for key in logs if (m := _REWARD_MEAN.match(key)))
        row = [str(state.global_step)]
        for keys in self.columns.values():
            row.append(_cell(next((logs[k] for k in keys if logs.get(k) is not None), None)))
        row += [_cell(logs.get(f"rewards/{name}/mean")) for name in self.reward_names]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("w" if self._fresh else "a", newline="") as f:
            writer = csv.writer(f)
            if self._fresh:
                writer.writerow(self.header)
            writer.writerow(row)
        self._fresh = False


def _rolling(values: Sequence[float], window: int = ROLLING) -> list[float]:
    """The mean of each value and the up to `window - 1` before it."""
    return [sum(values[max(0, i - window + 1) : i + 1]) / (i + 1 - max(0, i - window + 1)) for i in range(len(values))]


def plot_training_curves(log_history: Sequence[Mapping], path: str | Path) -> Path | None:
    """Draw reward (with its rolling mean and a +/- std band), KL and loss against the step; None when nothing
    was logged."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    logs = [log for log in log_history if is_train_log(log)]
    reward = [(log["step"], log["reward"], log.get("reward_std")) for log in logs if log.get("reward") is not None]
    kl = [(log["step"], log["kl"]) for log in logs if log.get("kl") is not None]
    loss = [(log["step"], log["loss"]) for log in logs if log.get("loss") is not None]
    if not reward and not loss:
        return None
    # Figure + Agg canvas instead of pyplot: no global backend switch, safe inside a training process.
    fig = Figure(figsize=(14, 4), layout="constrained")
    FigureCanvasAgg(fig)
    ax_reward, ax_kl, ax_loss = fig.subplots(1, 3)
    if reward:
        steps, means, stds = zip(*reward, strict=True)
        ax_reward.plot(steps, means, marker="o", markersize=2, alpha=0.4, label="reward")
        ax_reward.plot(steps, _rolling(means), color="tab:blue", label=f"rolling mean ({ROLLING} steps)")
        if all(s is not None for s in stds):
            low = [m - s for m, s in zip(means, stds, strict=True)]
            high = [m + s for m, s in zip(means, stds, strict=True)]
            ax_reward.fill_between(steps, low, high, alpha=0.15, label="± std")
        ax_reward.legend()
    ax_reward.set(title="reward", xlabel="step")
    if kl:
        ax_kl.plot(*zip(*kl, strict=True), color="tab:green", marker="o", markersize=2)
    ax_kl.set(title="KL to the reference", xlabel="step")
    if loss:
        ax_loss.plot(*zip(*loss, strict=True), color="tab:red", marker="o", markersize=2)
    ax_loss.set(title="loss", xlabel="step")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    return path


def summarise_log(path: str | Path) -> str | None:
    """One line on an ``rl_training.log``: the reward's rolling mean over the first and the last `ROLLING` steps,
    the KL and the loss at their largest and last; None without a file or rows."""
    path = Path(path)
    if not path.is_file():
        return None
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))

    def column(name: str) -> list[float]:
        return [float(row[name]) for row in rows if row.get(name) not in (None, "")]

    reward, kl, loss = column("avg_reward"), column("kl"), column("loss")
    if not reward and not loss:
        return None
    parts = [f"{len(rows)} logged steps"]
    if reward:
        window = min(ROLLING, len(reward))
        parts.append(f"reward {sum(reward[:window]) / window:.3f} over the first {window} steps, "
                     f"{sum(reward[-window:]) / window:.3f} over the last {window}")
    for name, values in (("KL to the reference", kl), ("loss", loss)):
        if values:
            parts.append(f"{name} at most {max(values):.4g}, last {values[-1]:.4g}")
    return "; ".join(parts) + "."


class TrainingCurvesCallback(TrainerCallback):
    """Save ``training_curves.png`` (reward and loss per step) to ``output_dir`` at train end."""

    def __init__(self, output_dir: str | Path | None = None):
        self.output_dir = output_dir

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs):
        if not state.is_world_process_zero:
            return
        path = plot_training_curves(state.log_history, Path(self.output_dir or args.output_dir) / CURVES_FILENAME)
        if path is None:
            logger.warning("no reward or loss was logged, so no %s was drawn", CURVES_FILENAME)
