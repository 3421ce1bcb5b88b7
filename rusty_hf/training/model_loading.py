"""Create a fresh TinyRWKV sized for a tokenizer, or load a checkpoint and check the tokenizer fits.

    model = load_or_create_model(model_args, script_args, tokenizer)

Loading goes through `AutoModelForCausalLM`, so any folder saved by rusty_hf (or a Hub id with remote
code, when `trust_remote_code` is set) works. A tokenizer that does not match the model fails here with
one message naming the fix, before any training step runs.
"""

from __future__ import annotations

import torch
from transformers import AutoModelForCausalLM, PreTrainedModel, PreTrainedTokenizerBase
from trl import ModelConfig

from rusty_hf.hub.checkpoints import check_model_source
from rusty_hf.training.arguments import RustyScriptArguments
from rusty_hf.inference.loading import UNREADABLE_CHECKPOINT
from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM
from rusty_hf.tokenizer import check_tokenizer, generation_eos_ids
from rusty_hf.errors import CheckpointError, UserError


def load_or_create_model(
    model_args: ModelConfig,
    script_args: RustyScriptArguments,
    tokenizer: PreTrainedTokenizerBase,
    trust_remote_code: bool = False,
) -> PreTrainedModel:
    """The model a recipe trains: `model_args.model_name_or_path` if set, else a fresh TinyRWKV.

    `trust_remote_code` comes from the trainer config (TRL keeps it there); it is only needed for a
    Hub checkpoint when rusty_hf is not the code that registered TinyRWKV. A missing folder, a damaged
    checkpoint or a tokenizer that does not fit raise a `rusty_hf.errors.UserError` naming the fix.
    """
    if model_args.model_name_or_path:
        try:
            name = check_model_source(model_args.model_name_or_path, revision=model_args.model_revision)
        except UserError as err:
            raise type(err)(f"model_name_or_path: {err} (or leave model_name_or_path unset to train a fresh model)") from None
        dtype = model_args.dtype if model_args.dtype in (None, "auto") else getattr(torch, model_args.dtype)
        try:
            model = AutoModelForCausalLM.from_pretrained(
                name, revision=model_args.model_revision, trust_remote_code=trust_remote_code, dtype=dtype,
            )
        except UNREADABLE_CHECKPOINT as err:
            raise CheckpointError(
                f"could not load a model from {name!r} (model_name_or_path): {str(err).strip().splitlines()[0]}\n"
                "Fix: point model_name_or_path at a folder written by save_pretrained; re-save or copy again a corrupt one."
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
