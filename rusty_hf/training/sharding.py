"""What a recipe adjusts when accelerate shards the model with FSDP2 (recipes/accelerate_configs/fsdp.yaml).

    from rusty_hf.training.sharding import prepare_sharded_run, save_full_weights
    prepare_sharded_run(trainer)   # before trainer.train(): checks the launch, fits the optimizer (FSDP, no bnb)
    save_full_weights(trainer)     # before the final trainer.save_model(): one from_pretrained folder

Without FSDP, `prepare_sharded_run` only swaps a bitsandbytes `optim` that is not installed, and the save is a no-op. accelerate does the sharding (`fsdp2_prepare_model`): every TinyRWKVBlock
is a unit; accelerate 1.15 also makes the embedding one and `ln_out` + `lm_head` one (older releases leave
both in the root unit); the root unit holds the rest, PPO's value head among it. TRL's fused LM head reads
`lm_head.weight` without calling `lm_head`, after the backbone has run: `ln_out`'s forward has gathered
the unit the head shares with it (or the root's forward has), and the head's gradient is reduced with
that unit's. PPO's value head runs inside the forward (rusty_hf/trainers/ppo.py). The launch tests check
both against one process and DDP. What is left to the recipes:

- bitsandbytes' optimizers do not take FSDP2's sharded (DTensor) parameters: the first step fails with
  `Operator bitsandbytes.optimizer_update_32bit.default does not have a sharding strategy registered`.
  A bitsandbytes `optim` (r2/sft.yaml's adamw_bnb_8bit) becomes `adamw_torch_fused` (transformers'
  default AdamW) with one logged line. 8-bit states would save 6 of AdamW's 8 bytes a parameter; FSDP2
  already divides all 8 by the number of GPUs.
- Without bitsandbytes (an offline GPU node whose image lacks it, as the lent H100/H200 images do), the
  same `optim` would stop the run when the optimizer is built ("You need to install `bitsandbytes`"):
  it becomes `adamw_torch_fused` too, with one logged line naming the fix.
- Checkpoints during training stay sharded (`fsdp_state_dict_type: SHARDED_STATE_DICT`: each process
  writes its shard, resume reads them back); Trainer's final `save_model` writes no weights in that mode,
  so the final save gathers the full state dict (accelerate's `set_state_dict_type("FULL_STATE_DICT")`,
  the switch it documents for "train sharded, save full") and the folder loads with `from_pretrained`.
- accelerate runs FSDP on GPUs only: with the trainer's `use_cpu: true` (every recipes/tiny YAML) an FSDP
  launch silently trains plain data parallel. That is refused, naming cpu.yaml.
"""

from __future__ import annotations

import logging
import os

from transformers import Trainer
from transformers.training_args import OptimizerNames

logger = logging.getLogger(__name__)


def is_sharded(trainer: Trainer) -> bool:
    """Whether accelerate shards this trainer's model with FSDP (set when the Trainer builds its Accelerator)."""
    return bool(getattr(trainer, "is_fsdp_enabled", False))


def prepare_sharded_run(trainer: Trainer) -> None:
    """Before `trainer.train()`: refuse an FSDP launch that would not shard, and fit the optimizer to FSDP."""
    if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() == "true" and not is_sharded(trainer):
        raise ValueError(
            "accelerate was launched with an FSDP config, but this run is on CPU (use_cpu: true), where accelerate "
            "runs plain data parallel instead of sharding. Fix: launch CPU processes with "
            "--config_file recipes/accelerate_configs/cpu.yaml, or run on GPUs without use_cpu."
        )
    if is_sharded(trainer):
        fit_optimizer_to_fsdp(trainer)
    fit_optimizer_to_installed(trainer)


def _bitsandbytes_optim(trainer: Trainer) -> str | None:
    """"installed" or "missing" when `optim` names a bitsandbytes optimizer, else None.

    Asks transformers which class `optim` names rather than keep our own list of bitsandbytes names; when
    bitsandbytes is missing, transformers' own ImportError names the package."""
    try:
        optimizer_cls, _ = trainer.get_optimizer_cls_and_kwargs(trainer.args, trainer.model)
    except ImportError as err:
        return "missing" if "bitsandbytes" in str(err) else None
    except ValueError:  # an optimizer that needs more: the Trainer says so itself
        return None
    return "installed" if getattr(optimizer_cls, "__module__", "").startswith("bitsandbytes") else None


def _fall_back_to_torch_adamw(trainer: Trainer, why: str, fix: str) -> str:
    args = trainer.args
    chosen = args.optim.value if isinstance(args.optim, OptimizerNames) else str(args.optim)
    fallback = OptimizerNames.ADAMW_TORCH_FUSED  # transformers' own default; takes DTensors on GPUs and CPUs
    if trainer.is_world_process_zero():
        logger.warning("optim %s is a bitsandbytes optimizer, %s; training with %s instead (%s).",
                       chosen, why, fallback.value, fix.format(fallback=fallback.value))
    args.optim = fallback
    return fallback.value


def fit_optimizer_to_installed(trainer: Trainer) -> str | None:
    """Replace a bitsandbytes `optim` with torch's fused AdamW when bitsandbytes is not installed, and log one
    line. Returns the new optimizer name, or None when nothing changed. Must run before the optimizer is built."""
    if trainer.optimizer is not None or _bitsandbytes_optim(trainer) != "missing":
        return None
    return _fall_back_to_torch_adamw(trainer, "and bitsandbytes is not installed here",
                                     "`pip install bitsandbytes` for 8-bit states, or set optim: {fallback}")


def fit_optimizer_to_fsdp(trainer: Trainer) -> str | None:
    """Under FSDP, replace a bitsandbytes `optim` with torch's fused AdamW and log one line.

    Returns the new optimizer name, or None when nothing changed. Must run before the optimizer is built
    (`Trainer.train` builds it after sharding the model)."""
    if not is_sharded(trainer) or trainer.optimizer is not None or _bitsandbytes_optim(trainer) != "installed":
        return None
    return _fall_back_to_torch_adamw(trainer, "which cannot update FSDP2's sharded parameters",
                                     "set optim: {fallback} in the recipe to silence this")


def save_full_weights(trainer: Trainer) -> None:
    """Make the next `trainer.save_model()` write the whole model (safetensors + config), not shards.

    Call it on every process before the final save: gathering the shards is a collective."""
    plugin = getattr(trainer.accelerator.state, "fsdp_plugin", None) if is_sharded(trainer) else None
    if plugin is not None and "FULL_STATE_DICT" not in str(plugin.state_dict_type):
        plugin.set_state_dict_type("FULL_STATE_DICT")


__all__ = ["fit_optimizer_to_fsdp", "fit_optimizer_to_installed", "is_sharded", "prepare_sharded_run", "save_full_weights"]
