"""The end every recipe shares: train (resuming when asked), then leave a Hub-ready folder.

    from rusty_hf.training.run import train_and_finish
    train_and_finish(trainer, script_args, training_args, model_args)

``resume_from_checkpoint: last`` (YAML or CLI) resumes from the newest checkpoint in ``output_dir``.
The folder gets the weights, the modelling code (remote code), the tokenizer and our model card;
with ``push_to_hub`` it is uploaded to ``hub_model_id`` (`rusty_hf.publishing.finalize_output`).
Under FSDP the launch and the optimizer are checked first and the final save gathers the whole model
(`rusty_hf.training.sharding`).
"""

from __future__ import annotations

from pathlib import Path

from transformers import Trainer, TrainingArguments

from rusty_hf.publishing import finalize_output
from rusty_hf.training.model_loading import resume_checkpoint
from rusty_hf.training.cpu_allocator import keep_freed_memory
from rusty_hf.training.sharding import prepare_sharded_run
from rusty_hf.training.trl_cpu import compact_fused_head_on_cpu


def train_and_finish(trainer: Trainer, script_args: object, training_args: TrainingArguments, model_args: object) -> Path:
    """Run ``trainer.train()`` and write (and maybe push) the output folder; returns it."""
    prepare_sharded_run(trainer)  # FSDP: a launch that would not shard is refused; bitsandbytes optim -> AdamW
    compact_fused_head_on_cpu()  # TRL scores every position on CPU otherwise (see trl_cpu.py)
    if trainer.args.device.type == "cpu":
        keep_freed_memory()  # the step's large buffers are otherwise re-faulted every step (cpu_allocator.py)
    trainer.train(resume_from_checkpoint=resume_checkpoint(training_args.resume_from_checkpoint))
    return finalize_output(trainer, script_args, training_args, model_args=model_args)  # prints where it saved
