"""Create a fresh TinyRWKV sized for a tokenizer, or load a checkpoint and check the tokenizer fits.

    model = load_or_create_model(model_args, script_args, tokenizer)

Loading goes through `AutoModelForCausalLM`, so any folder saved by rusty_hf (or a Hub id with remote
code, when `trust_remote_code` is set) works. A tokenizer that does not match the model fails here with
one message naming the fix, before any training step runs.
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, PreTrainedModel, PreTrainedTokenizerBase
from trl import ModelConfig

from rusty_hf.configs import RustyScriptArguments
from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM
from rusty_hf.tokenizer import check_tokenizer, generation_eos_ids


def is_missing_local_folder(name_or_path: str) -> bool:
    """True when `name_or_path` names a local folder that does not exist (absolute, or under an
    existing directory such as outputs/), so it must not fall through to a Hub lookup. "user/name"
    is a Hub id unless ./user exists."""
    path = Path(name_or_path)
    if path.is_dir():
        return False
    return path.is_absolute() or (path.parent != Path(".") and path.parent.is_dir())


def load_or_create_model(
    model_args: ModelConfig,
    script_args: RustyScriptArguments,
    tokenizer: PreTrainedTokenizerBase,
    trust_remote_code: bool = False,
) -> PreTrainedModel:
    """The model a recipe trains: `model_args.model_name_or_path` if set, else a fresh TinyRWKV.

    `trust_remote_code` comes from the trainer config (TRL keeps it there); it is only needed for a
    Hub checkpoint when rusty_hf is not the code that registered TinyRWKV.
    """
    if model_args.model_name_or_path:
        if is_missing_local_folder(model_args.model_name_or_path):
            raise FileNotFoundError(
                f"no checkpoint folder at {model_args.model_name_or_path!r}. Fix: point model_name_or_path at a folder written by "
                "save_pretrained, a Hub id (user/name), or leave it unset to train a fresh model."
            )
        dtype = model_args.dtype if model_args.dtype in (None, "auto") else getattr(torch, model_args.dtype)
        try:
            model = AutoModelForCausalLM.from_pretrained(
                model_args.model_name_or_path,
                revision=model_args.model_revision,
                trust_remote_code=trust_remote_code,
                dtype=dtype,
            )
        except OSError as err:
            raise OSError(
                f"could not load a model from {model_args.model_name_or_path!r}: {err}\n"
                "Fix: point model_name_or_path at a folder written by save_pretrained (or leave it unset to "
                "train a fresh model); a corrupt folder must be re-saved or re-downloaded."
            ) from err
    else:
        torch.manual_seed(script_args.init_seed)
        config = TinyRWKVConfig(
            vocab_size=len(tokenizer),
            d_embed=script_args.d_embed,
            d_hidden=script_args.d_hidden,
            n_layers=script_args.n_layers,
            ffn_mult=script_args.ffn_mult,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        )
        model = TinyRWKVForCausalLM(config)
    check_tokenizer(tokenizer, vocab_size=model.config.vocab_size)
    model.generation_config.eos_token_id = generation_eos_ids(tokenizer)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def resume_checkpoint(resume_from_checkpoint: str | bool | None) -> str | bool | None:
    """``resume_from_checkpoint`` as Trainer.train wants it: "last"/"true" (from YAML or the CLI, where it is a
    string) mean the newest checkpoint in output_dir; a path stays a path; ""/"false"/None start fresh."""
    if isinstance(resume_from_checkpoint, str):
        word = resume_from_checkpoint.strip().lower()
        if word in ("last", "true", "latest"):
            return True
        if word in ("", "false", "none"):
            return None
    return resume_from_checkpoint
