"""TRL's SFTTrainer without a host sync in its training step: the same loss, the same logged numbers.

TRL 1.16's `SFTTrainer.compute_loss` turns three numbers into Python floats every micro-batch (the mean
entropy, the token accuracy and the tokens trained on: `.item()` and `num_valid > 0`). Each is a host sync:
the CPU waits for the forward to finish before it can queue the backward, and the GPU then waits for the
backward's launches. With short packed rows (the r2 SFT recipe: 8 rows of 1024 a step, ~60 ms of GPU work)
that idle time is a large share of the step.

`LeanSFTTrainer` overrides `compute_loss` for TRL's usual path (the fused LM head, the `nll`, `chunked_nll`
or `dft` loss) and keeps each micro-batch's three sums on the device; `log` turns them into the floats TRL
would have appended, micro-batch by micro-batch, just before TRL averages them. Anything else (evaluation,
`compute_loss_func`, label smoothing, MoE aux loss, sequence parallelism, `return_outputs`) goes to TRL's own
`compute_loss` unchanged. A test holds losses, gradients and every logged number to TRL's.

Its base, `PaddingFreeSFTTrainer` (the recipe's trainer with ``--lean_step false``), lets ``padding_free`` rows
keep ``max_length`` without ``packing``: each micro-batch's rows, as the sampler drew them, flattened into one row
(`position_ids` restarting per document) with nothing padded. TRL refuses that pair because ``max_length`` then
bounds each document, not the flattened row; here each document is truncated to it by TRL's own preparation, and
the row holds at most ``per_device_train_batch_size`` of them. Any other configuration is TRL's unchanged.

    from rusty_hf.training.lean_sft import LeanSFTTrainer   # a drop-in for trl.SFTTrainer (recipes/sft.py)
"""

from __future__ import annotations

import copy

import torch
from trl import SFTTrainer


class PaddingFreeSFTTrainer(SFTTrainer):
    """`trl.SFTTrainer` whose ``padding_free`` rows without ``packing`` take ``max_length`` per document."""

    def __init__(self, *args, **kwargs):
        training_args = kwargs.get("args", args[1] if len(args) > 1 else None)
        # padding-free rows without packing: max_length truncates each document (TRL's check would refuse it)
        self._document_max_length = None
        if (training_args is not None and getattr(training_args, "padding_free", False)
                and not training_args.packing and training_args.max_length is not None):
            self._document_max_length, training_args.max_length = training_args.max_length, None
        try:
            super().__init__(*args, **kwargs)
        finally:
            if self._document_max_length is not None:
                training_args.max_length = self._document_max_length

    def _prepare_dataset(self, dataset, processing_class, args, *rest, **kwargs):
        if self._document_max_length is not None:  # TRL's own truncation, with the documents' limit
            args = copy.copy(args)
            args.max_length = self._document_max_length
        return super()._prepare_dataset(dataset, processing_class, args, *rest, **kwargs)


class LeanSFTTrainer(PaddingFreeSFTTrainer):
    """`trl.SFTTrainer` whose training step leaves its metrics on the device until a log."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._pending_sums: list[torch.Tensor] = []  # per micro-batch: (label positions, entropy sum, top-1 hits)
        self._pending_tokens: list[torch.Tensor] = []  # per micro-batch: tokens trained on (TRL's num_tokens)
        self.lean_micro_batches = 0  # micro-batches that took the sync-free path

    def _lean_step(self, return_outputs: bool) -> bool:
        parallelism = getattr(self.accelerator, "parallelism_config", None)
        return (self.model.training and not return_outputs and self.compute_loss_func is None
                and self.label_smoother is None and not self.aux_loss_enabled
                and not (parallelism is not None and getattr(parallelism, "sp_enabled", False)))  # fmt: skip

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        if not self._lean_step(return_outputs):
            return super().compute_loss(model, inputs, return_outputs=return_outputs, num_items_in_batch=num_items_in_batch)
        self.lean_micro_batches += 1
        inputs["use_cache"] = False
        outputs = model(**inputs, fused_lm_head=True)
        per_token_loss = -outputs.log_probs  # zero where the label is ignored
        if self.args.loss_type == "dft":
            per_token_loss = per_token_loss * outputs.log_probs.exp().detach()
        num_tokens = outputs.label_mask.sum() if num_items_in_batch is None else num_items_in_batch
        loss = per_token_loss.sum() / torch.as_tensor(num_tokens).clamp(min=1)
        if self.args.average_tokens_across_devices and num_items_in_batch is not None:
            loss = loss * (self.accelerator.num_processes // self.get_tp_size())
        sums = [outputs.label_mask.sum(), outputs.entropy.detach().sum(), outputs.is_top1.sum()]
        self._pending_sums.append(torch.stack([s.float() for s in sums]))
        if "attention_mask" in inputs:
            tokens = inputs["attention_mask"].sum()
        elif "position_ids" in inputs:
            tokens = torch.tensor(inputs["position_ids"].size(1), device=inputs["position_ids"].device)
        else:
            raise ValueError("Expected 'attention_mask' or 'position_ids' in inputs.")
        self._pending_tokens.append(tokens.reshape(()).to(torch.long))
        return loss

    def _flush_pending(self) -> None:
        """The pending micro-batches' metrics, as TRL would have appended them (every rank's sums)."""
        if not self._pending_sums:
            return
        sums = self.accelerator.gather(torch.stack(self._pending_sums)[None])  # (ranks, n, 3); no dedup: training rows
        sums = sums.view(-1, *sums.shape[-2:]).sum(0).tolist()
        metrics = self._metrics["train"]
        for valid, entropy, correct in sums:
            metrics["entropy"].append(entropy / valid if valid > 0 else 0.0)
            metrics["mean_token_accuracy"].append(correct / valid if valid > 0 else 0.0)
        tokens = self.accelerator.gather(torch.stack(self._pending_tokens)[None])  # (ranks, n)
        for count in tokens.view(-1, tokens.shape[-1]).sum(0).tolist():
            self._total_train_tokens += int(count) // self._tp_size
        metrics["num_tokens"] = [self._total_train_tokens]
        self._pending_sums, self._pending_tokens = [], []

    def log(self, logs: dict[str, float], start_time: float | None = None) -> None:
        if self.model.training:
            self._flush_pending()
        super().log(logs, start_time)
