"""Bits per byte on the held-out split: the tokenizer-independent number a pretraining run reports.

    from rusty_hf.training.pretraining import BitsPerByteSFTTrainer
    trainer = BitsPerByteSFTTrainer(model=model, args=sft_config, train_dataset=train, eval_dataset=validation,
                                    processing_class=tokenizer)
    trainer.evaluate()   # {"eval_loss": ..., "eval_bits_per_byte": ..., ...}

`eval_loss` is nats per token, so it moves when the tokenizer changes; bits per byte divides the same
total information by the UTF-8 bytes of the text instead:

    bits/byte = eval_loss [nats/token] * tokens / bytes / ln 2

The tokens-per-byte ratio is counted once, when the trainer is built: tokens of the prepared (tokenized,
packed) eval dataset, each document's appended EOS included, over the UTF-8 bytes of the raw eval texts.
`eval_loss` is Trainer's mean of per-batch mean losses; with wrapped packing every row but the last holds
max_length tokens, so that is the per-token mean up to the one short row.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable

import pyarrow as pa
import pyarrow.compute as pc
import torch
from datasets import Dataset
from transformers import Trainer
from transformers.trainer_utils import EvalLoopOutput

from .lean_sft import LeanSFTTrainer

logger = logging.getLogger(__name__)


def bits_per_byte(loss_nats_per_token: float, tokens_per_byte: float) -> float:
    """Convert a mean loss in nats per token to bits per UTF-8 byte of the text those tokens encode."""
    if tokens_per_byte <= 0:
        raise ValueError(f"tokens_per_byte must be > 0, got {tokens_per_byte}")
    return loss_nats_per_token * tokens_per_byte / math.log(2)


def _column_sum(dataset: Dataset, column: str, measure: Callable[[pa.Array], pa.Array]) -> int:
    # Arrow batches, not Python lists: a validation split can hold millions of tokens; iter() honours an
    # indices mapping (shuffle/select), which dataset.data alone would not.
    total = 0
    for batch in dataset.with_format("arrow").iter(batch_size=1024):
        total += pc.sum(measure(batch[column])).as_py() or 0
    return total


def count_tokens(tokenized: Dataset, column: str = "input_ids") -> int:
    """Tokens in a tokenized (possibly packed) dataset."""
    return _column_sum(tokenized, column, pc.list_value_length)


def count_text_bytes(texts: Dataset, column: str = "text") -> int:
    """UTF-8 bytes of a text column."""
    return _column_sum(texts, column, pc.binary_length)


class BitsPerByteSFTTrainer(LeanSFTTrainer):
    """SFTTrainer that logs `eval_bits_per_byte` next to `eval_loss` (and, on CPU, takes the model's own loss).

    On a GPU its training step is `LeanSFTTrainer`'s: TRL's loss and logged numbers without a host sync per
    micro-batch (the r2 recipe runs 4 micro-batches of 32 rows a step).

    Bits per byte overrides `Trainer.evaluation_loop` only: it returns the metrics that `Trainer.evaluate` logs
    and hands to callbacks, so the new number reaches log_history, TensorBoard and the returned dict. (A callback's
    `on_evaluate` runs after the log is written, too late.) The ratio describes `self.eval_dataset`, so it is
    added under the default "eval" prefix only: call `evaluate(other_dataset, metric_key_prefix="other")`
    for another dataset, which then reports its loss without a (wrong) bits per byte.
    """

    def __init__(self, *args, eval_dataset: Dataset | None = None, eval_tokens_per_byte: float | None = None, **kwargs):
        """``eval_tokens_per_byte``: given for an eval split that is already tokenized (a prepared folder records it)."""
        super().__init__(*args, eval_dataset=eval_dataset, **kwargs)
        self.eval_tokens_per_byte = eval_tokens_per_byte
        text_field = self.args.dataset_text_field
        if isinstance(eval_dataset, Dataset) and text_field in eval_dataset.column_names and isinstance(self.eval_dataset, Dataset):
            n_bytes = count_text_bytes(eval_dataset, text_field)
            if n_bytes > 0:
                self.eval_tokens_per_byte = count_tokens(self.eval_dataset) / n_bytes
                logger.info("eval split: %d bytes, %.4f tokens per byte", n_bytes, self.eval_tokens_per_byte)

    def compute_loss(self, model, inputs, return_outputs: bool = False, num_items_in_batch=None):
        """On CPU, the model's own loss (`Trainer.compute_loss`) instead of TRL's fused LM head.

        TRL scores every position through its chunked log-prob/entropy/top-1 head; without Triton that runs as
        torch tiles, and pretraining labels every token. Measured on the tiny recipe (4 steps, 8 x 512 tokens,
        2 busy cores): backward 19.0 s -> 5.6 s, train_runtime 31.8 s -> 24.2 s, identical losses (the same mean
        token NLL and `num_items_in_batch` reduction, through TinyRWKV's `cpu_kernels.cross_entropy`). The
        price on CPU: no `entropy` / `mean_token_accuracy` metrics. GPUs keep TRL's path (Triton, and those).
        TRL's `num_tokens` (the tokens trained on so far, every rank's) is kept, counted as TRL counts it.
        """
        if self.args.device.type == "cpu":
            if model.training:
                mask = inputs.get("attention_mask")
                local = mask.sum() if mask is not None else torch.tensor(inputs["input_ids"].numel())
                self._total_train_tokens += self.accelerator.gather_for_metrics(local.reshape(1)).sum().item()
                self._metrics["train"]["num_tokens"] = [self._total_train_tokens]
            return Trainer.compute_loss(self, model, inputs, return_outputs, num_items_in_batch)
        return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)

    def evaluation_loop(
        self,
        dataloader,
        description: str,
        prediction_loss_only: bool | None = None,
        ignore_keys: list[str] | None = None,
        metric_key_prefix: str = "eval",
    ) -> EvalLoopOutput:
        output = super().evaluation_loop(dataloader, description, prediction_loss_only, ignore_keys, metric_key_prefix)
        loss = output.metrics.get(f"{metric_key_prefix}_loss")
        if metric_key_prefix == "eval" and loss is not None and self.eval_tokens_per_byte:
            output.metrics["eval_bits_per_byte"] = bits_per_byte(float(loss), self.eval_tokens_per_byte)
        return output
