"""Causal-LM pretraining of Rusty on raw code text, with sequence packing (TRL's SFTTrainer).

    python3 recipes/build_code_corpus.py --output_dir data/code_corpus        # once: the corpus
    python3 recipes/pretrain.py --config recipes/tiny/pretrain.yaml            # 2 CPU cores, minutes
    accelerate launch --config_file recipes/accelerate_configs/ddp.yaml --num_processes $GPUS recipes/pretrain.py --config recipes/r2/pretrain.yaml
    accelerate launch --config_file recipes/accelerate_configs/fsdp.yaml --num_processes $GPUS recipes/pretrain.py --config recipes/r2/pretrain.yaml
    python3 recipes/sft.py --config recipes/tiny/sft.yaml \\
        --model_name_or_path outputs/tiny-pretrain --tokenizer_name_or_path outputs/tiny-pretrain   # SFT from it

Reads `dataset_path`, a DatasetDict saved with `save_to_disk` with `train` and `validation` splits and a
`text` column (other columns are ignored), or `dataset_name`, a Hub dataset with those splits. Every
document gets an EOS and the token stream is cut into `max_length` rows (`packing_strategy: wrapped`; the
YAMLs say why not BFD). The loss is on every token. At each `eval_steps` it logs `eval_loss` and
`eval_bits_per_byte` on the validation split (`rusty_hf.training.pretraining`). Resume with
`--resume_from_checkpoint last`. Saves a Hub-ready folder (weights, remote code, tokenizer, card) that
recipes/sft.py loads as `model_name_or_path`.

`--save_prepared_to DIR` tokenizes and packs both splits as training would, saves them compactly (uint16
token ids) and exits; `--dataset_path DIR` then trains from them with no tokenizing
(`rusty_hf.training.prepared_data`; recipes/r2/pipeline.sh prepare / train). `--max_train_tokens N` trains
on (or prepares) at most N tokens.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys

from pathlib import Path

import numpy as np
import pyarrow.compute as pc
from datasets import Dataset, DatasetDict, load_dataset, load_from_disk
from trl import ModelConfig, SFTConfig, TrlParser, get_peft_config

from rusty_hf.training.arguments import PretrainScriptArguments
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.training import load_or_create_model
from rusty_hf.training.prepared_data import (
    is_prepared, load_prepared, rows_for_tokens, save_prepared, train_from_prepared,
)
from rusty_hf.training.pretraining import BitsPerByteSFTTrainer
from rusty_hf.training.run import train_and_finish
from rusty_hf.errors import NoSuchPathError, UserError, run_recipe

BUILD_CORPUS = "python3 recipes/build_code_corpus.py --output_dir data/code_corpus"


def _subset(dataset: Dataset, limit: int | None, seed: int) -> Dataset:
    # A seeded random subset, not the first rows: a corpus is often grouped by language or package.
    if limit is None or limit >= len(dataset):
        return dataset
    return dataset.shuffle(seed=seed).select(range(limit))


# Bytes of text taken per token asked for by max_train_tokens: code runs ~3-4 bytes a token with the 24K
# tokenizer, so this tokenizes about twice what the cap keeps, and the packed rows are then cut to fit.
BYTES_PER_CAPPED_TOKEN = 8


def _cap_bytes(dataset: Dataset, max_tokens: int | None, seed: int) -> Dataset:
    """A seeded subset of documents holding about BYTES_PER_CAPPED_TOKEN x ``max_tokens`` bytes: tokenizing the
    whole corpus for a small cap would cost minutes."""
    if max_tokens is None:
        return dataset
    dataset = dataset.shuffle(seed=seed)
    sizes = np.concatenate([pc.binary_length(b["text"]).to_numpy(zero_copy_only=False)
                            for b in dataset.with_format("arrow").iter(batch_size=4096)] or [np.zeros(0)])
    keep = int(np.searchsorted(np.cumsum(sizes), BYTES_PER_CAPPED_TOKEN * max_tokens)) + 1
    return dataset.select(range(min(keep, len(dataset))))


def load_text_splits(script_args: PretrainScriptArguments, seed: int = 0) -> tuple[Dataset, Dataset]:
    """The (train, validation) text datasets; a missing `dataset_path` fails naming the command that builds it."""
    train_split, eval_split = script_args.dataset_train_split, script_args.dataset_test_split
    if script_args.dataset_name:
        splits = {
            split: load_dataset(script_args.dataset_name, script_args.dataset_config, split=split)
            for split in (train_split, eval_split)
        }
    else:
        path = Path(script_args.dataset_path)
        if not path.exists():
            raise NoSuchPathError(
                f"no code corpus at {str(path)!r}. Fix: build it with `{BUILD_CORPUS}` (and pass "
                "--dataset_path if you wrote it elsewhere), or set dataset_name to a Hub dataset."
            )
        splits = load_from_disk(str(path))
        if not isinstance(splits, DatasetDict):
            raise UserError(f"{path} holds a single Dataset; pretraining wants a DatasetDict with {train_split!r} "
                             f"and {eval_split!r} splits (rebuild it with `{BUILD_CORPUS}`)")
        missing = [split for split in (train_split, eval_split) if split not in splits]
        if missing:
            raise UserError(f"{path} has splits {sorted(splits)}, not {missing}; set dataset_train_split / "
                             "dataset_test_split to the ones it has")
    return (
        _cap_bytes(_subset(splits[train_split], script_args.max_train_texts, seed), script_args.max_train_tokens, seed),
        _subset(splits[eval_split], script_args.max_eval_texts, seed),
    )


def load_splits(script_args: PretrainScriptArguments, training_args: SFTConfig, tokenizer) -> tuple[Dataset, Dataset, float | None]:
    """(train, validation, eval tokens per byte): texts, or the rows of a prepared folder (tokens per byte from its record)."""
    if script_args.dataset_name or not is_prepared(script_args.dataset_path):
        train, validation = load_text_splits(script_args, training_args.seed)
        return train, validation, None
    splits, meta = load_prepared(script_args.dataset_path, tokenizer, training_args.max_length)
    train_from_prepared(training_args)
    return splits["train"], splits["validation"], meta.get("eval_tokens_per_byte")


def main(
    script_args: PretrainScriptArguments, training_args: SFTConfig, model_args: ModelConfig
) -> BitsPerByteSFTTrainer:
    tokenizer = load_tokenizer(script_args.tokenizer_name_or_path)
    train_dataset, eval_dataset, tokens_per_byte = load_splits(script_args, training_args, tokenizer)  # before a model
    model = load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code)
    trainer = BitsPerByteSFTTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        eval_dataset=eval_dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
        eval_tokens_per_byte=tokens_per_byte,
    )
    if script_args.max_train_tokens is not None:
        rows = rows_for_tokens(script_args.max_train_tokens, training_args.max_length)
        trainer.train_dataset = trainer.train_dataset.select(range(min(rows, len(trainer.train_dataset))))
    if script_args.save_prepared_to:
        save_prepared({"train": trainer.train_dataset, "validation": trainer.eval_dataset}, script_args.save_prepared_to,
                      tokenizer, recipe="pretrain", max_length=training_args.max_length,
                      num_proc=training_args.dataset_num_proc, eval_tokens_per_byte=trainer.eval_tokens_per_byte)
        return trainer
    train_and_finish(trainer, script_args, training_args, model_args, count_padding=True)  # + card, push_to_hub
    return trainer


if __name__ == "__main__":
    sys.exit(run_recipe("pretrain.py", TrlParser((PretrainScriptArguments, SFTConfig, ModelConfig)), main))
