"""The end every recipe shares: train (resuming when asked), then leave a Hub-ready folder.

    from rusty_hf.training.run import train_and_finish
    train_and_finish(trainer, script_args, training_args, model_args)

``resume_from_checkpoint: last`` (YAML or CLI) resumes from the newest checkpoint in ``output_dir``;
``max_train_minutes`` fits the run into a wall-clock budget (`rusty_hf.training.time_budget`).
The folder gets the weights, the modelling code (remote code), the tokenizer and our model card;
with ``push_to_hub`` it is uploaded to ``hub_model_id`` (`rusty_hf.hub.publishing.finalize_output`).
Under FSDP the launch and the optimizer are checked first and the final save gathers the whole model
(`rusty_hf.training.sharding`).
"""

from __future__ import annotations

import time
from pathlib import Path

from transformers import Trainer, TrainerCallback, TrainingArguments

from rusty_hf.hub.publishing import finalize_output
from rusty_hf.training.model_loading import resume_checkpoint
from rusty_hf.training.cpu_allocator import keep_freed_memory
from rusty_hf.training.padding import PaddingMeter
from rusty_hf.training.sharding import prepare_sharded_run
from rusty_hf.training.time_budget import TimeBudgetCallback
from rusty_hf.training.trl_cpu import fused_head_on_cpu


def train_and_finish(trainer: Trainer, script_args: object, training_args: TrainingArguments, model_args: object,
                     count_padding: bool = False) -> Path:
    """Run ``trainer.train()`` and write (and maybe push) the output folder; returns it.

    ``count_padding`` (the SFT and pretraining recipes: one forward a micro-batch) logs the pad fraction and the
    real tokens per step (`rusty_hf.training.padding`)."""
    prepare_sharded_run(trainer)  # FSDP: a launch that would not shard is refused; bitsandbytes optim -> AdamW
    if getattr(script_args, "max_train_minutes", None):
        trainer.add_callback(TimeBudgetCallback(script_args.max_train_minutes))
    trainer.add_callback(ThroughputClock())
    if count_padding:
        PaddingMeter.attach(trainer)
    fused_head_on_cpu()  # TRL scores every position on CPU, with an emulation of its Triton kernel (trl_cpu.py)
    if trainer.args.device.type == "cpu":
        keep_freed_memory()  # the step's large buffers are otherwise re-faulted every step (cpu_allocator.py)
    result = trainer.train(resume_from_checkpoint=resume_checkpoint(training_args.resume_from_checkpoint))
    record_throughput(trainer, result.metrics)
    metrics = last_eval_metrics(trainer)  # into the card: e.g. pretraining's held-out loss and bits per byte
    out = finalize_output(trainer, script_args, training_args, metrics, model_args=model_args)  # prints where it saved
    # Accelerate's end of a script: trackers finished, the process group destroyed. An `accelerate launch` rank that
    # exits with its gloo group alive can abort in teardown ("terminate called without an active exception", exit -6)
    # after the run saved; a no-op in a single process.
    trainer.accelerator.end_training()
    return out


WARMUP_STEPS = 2  # steps left out of the after-warm-up rate: start-up, compilation, autotuning


class ThroughputClock(TrainerCallback):
    """When each log with TRL's ``num_tokens`` was written: ``(step, seconds, tokens)``, for the rate after warm-up."""

    def __init__(self) -> None:
        self.marks: list[tuple[int, float, float]] = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "num_tokens" in logs:
            self.marks.append((state.global_step, time.monotonic(), float(logs["num_tokens"])))

    def rate_after_warmup(self) -> float | None:
        """Tokens/s from the first log after WARMUP_STEPS steps to the last log; None without two such logs."""
        marks = [m for m in self.marks if m[0] >= WARMUP_STEPS]
        if len(marks) < 2 or marks[-1][1] <= marks[0][1]:
            return None
        return (marks[-1][2] - marks[0][2]) / (marks[-1][1] - marks[0][1])


CARD_EVAL_METRICS = ("eval_loss", "eval_bits_per_byte")


def last_eval_metrics(trainer: Trainer) -> dict[str, dict[str, float]] | None:
    """The last logged evaluation's loss (and bits per byte), shaped for the model card; None without one."""
    last = next((entry for entry in reversed(trainer.state.log_history) if "eval_loss" in entry), None)
    if last is None:
        return None
    return {f"held-out split at step {last.get('step', trainer.state.global_step)}":
            {name.removeprefix("eval_"): float(last[name]) for name in CARD_EVAL_METRICS if name in last}}


def record_throughput(trainer: Trainer, metrics: dict[str, float]) -> dict[str, float]:
    """Add tokens and tokens/s to the run's metrics, print one line, save ``train_results.json`` and
    ``trainer_state.json`` to ``output_dir`` (``Trainer.save_metrics`` / ``save_state``, as transformers' examples do).

    The token count is TRL's ``num_tokens`` (every process's tokens, padding excluded), last logged value;
    ``train_tokens_per_second_after_warmup`` counts from the first log after WARMUP_STEPS steps (ThroughputClock).
    """
    metrics = dict(metrics)
    num_tokens = next((e["num_tokens"] for e in reversed(trainer.state.log_history) if "num_tokens" in e), None)
    runtime = metrics.get("train_runtime")
    if num_tokens is not None and runtime:
        metrics |= {"train_num_tokens": num_tokens, "train_tokens_per_second": round(num_tokens / runtime, 1)}
    clock = next((c for c in trainer.callback_handler.callbacks if isinstance(c, ThroughputClock)), None)
    after_warmup = clock.rate_after_warmup() if clock is not None else None
    if after_warmup is not None:  # what a longer run sustains: start-up and compilation left out
        metrics["train_tokens_per_second_after_warmup"] = round(after_warmup, 1)
    metrics["train_steps"] = trainer.state.global_step
    if trainer.is_world_process_zero():
        speed = f", {metrics['train_tokens_per_second']:,.0f} tokens/s ({num_tokens:,.0f} tokens)" if "train_num_tokens" in metrics else ""
        print(f"trained {trainer.state.global_step} steps in {runtime or 0:.0f} s{speed}")
    trainer.save_metrics("train", metrics)
    trainer.save_state()  # trainer_state.json: the log history (losses, evals) next to the final weights
    return metrics
