"""Training data prepared once (tokenized, packed, compact) and trained from later, offline.

    python3 recipes/pretrain.py --config recipes/r2/pretrain.yaml --save_prepared_to DATA/pretrain   # no training
    python3 recipes/pretrain.py --config recipes/r2/pretrain.yaml --dataset_path DATA/pretrain       # trains from it
    python3 recipes/sft.py --config recipes/r2/sft.yaml --save_prepared_to DATA/sft
    python3 recipes/sft.py --config recipes/r2/sft.yaml --dataset_name DATA/sft

With ``--save_prepared_to`` a recipe builds its trainer as for a run, so TRL's own preparation makes the
rows (EOS after each document, tokenizing, the chat template's assistant masks, wrapped packing), then
saves them with `datasets` (``save_to_disk``) instead of training. Token ids are stored as uint16 when
the vocabulary fits (2 bytes a token instead of the 8 of a tokenized Arrow column), labels only where
they differ from the ids (SFT's -100 on non-assistant tokens, as int16 when the vocabulary fits), and
``prepared.json`` records what the rows depend on: max_length, the tokenizer's size and EOS, and for
pretraining the held-out split's tokens per UTF-8 byte (for bits per byte). A recipe given the folder
checks those against its own settings and trains with ``skip_prepare_dataset``: no tokenizing, no
packing, no cache files written at training time. TRL's collator takes the ids as the labels where the
rows carry none, and pads nothing (every packed row is max_length long).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow.compute as pc
from datasets import Dataset, DatasetDict, Features, List, Value, load_from_disk
from transformers import PreTrainedTokenizerBase

from rusty_hf.training.pretraining import count_tokens

PREPARED_FILE = "prepared.json"
FORMAT = 1


def is_prepared(path: str | Path | None) -> bool:
    """Whether ``path`` is a folder written by :func:`save_prepared`."""
    return path is not None and (Path(path) / PREPARED_FILE).is_file()


def _int_type(vocab_size: int, signed: bool) -> str:
    # ids run 0..vocab-1; labels also hold -100, so they need a signed type
    if signed:
        return "int16" if vocab_size <= 2**15 else "int32"
    return "uint16" if vocab_size <= 2**16 else "int32"


def _labels_are_ids(dataset: Dataset) -> bool:
    """True when every label equals its token id (pretraining), so the column can be dropped."""
    for batch in dataset.with_format("arrow").iter(batch_size=4096):
        same = pc.equal(pc.list_flatten(batch["labels"]), pc.list_flatten(batch["input_ids"]))
        if not pc.all(same).as_py():
            return False
    return True


def compact(dataset: Dataset, vocab_size: int, num_proc: int | None = None) -> Dataset:
    """Only the columns training reads (input_ids, labels where they carry a mask), in the narrowest integer types."""
    keep = ["input_ids"] + (["labels"] if "labels" in dataset.column_names and not _labels_are_ids(dataset) else [])
    dataset = dataset.select_columns(keep)
    features = Features({name: List(Value(_int_type(vocab_size, signed=name == "labels"))) for name in keep})
    return dataset.cast(features, num_proc=num_proc)


def save_prepared(splits: dict[str, Dataset], out: str | Path, tokenizer: PreTrainedTokenizerBase, *, recipe: str,
                  max_length: int | None, num_proc: int | None = None, **extra: object) -> dict:
    """Save the trainer-ready ``splits`` compactly to ``out`` with their ``prepared.json``; returns that record."""
    out = Path(out)
    vocab = len(tokenizer)
    data = DatasetDict({name: compact(ds, vocab, num_proc) for name, ds in splits.items()})
    data.save_to_disk(str(out), num_proc=num_proc if num_proc and num_proc > 1 else None)
    meta = {"format": FORMAT, "recipe": recipe, "max_length": max_length, "vocab_size": vocab,
            "eos_token_id": tokenizer.eos_token_id, "token_dtype": _int_type(vocab, signed=False),
            "splits": {name: {"rows": len(ds), "tokens": count_tokens(ds)} for name, ds in data.items()}, **extra}
    (out / PREPARED_FILE).write_text(json.dumps(meta, indent=2) + "\n")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    tokens = sum(s["tokens"] for s in meta["splits"].values())
    print(f"prepared {recipe} data: {tokens:,} tokens in {size / 2**20:,.1f} MiB -> {out}")
    return meta


def load_prepared(path: str | Path, tokenizer: PreTrainedTokenizerBase, max_length: int | None) -> tuple[DatasetDict, dict]:
    """The splits and record of a prepared folder, after checking they fit this run's tokenizer and max_length.

    Raises:
        ValueError: naming the setting that differs and the fix.
    """
    meta = json.loads((Path(path) / PREPARED_FILE).read_text())
    fix = f"prepare it again with this run's settings (--save_prepared_to {path})"
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path} was prepared in format {meta.get('format')}, this rusty_hf reads {FORMAT}: {fix}")
    if (meta["vocab_size"], meta["eos_token_id"]) != (len(tokenizer), tokenizer.eos_token_id):
        raise ValueError(f"{path} was tokenized with a {meta['vocab_size']}-token vocabulary (EOS {meta['eos_token_id']}), "
                         f"this run's tokenizer has {len(tokenizer)} (EOS {tokenizer.eos_token_id}): pass the tokenizer "
                         f"it was prepared with, or {fix}")
    if meta["max_length"] != max_length:
        raise ValueError(f"{path} holds rows of max_length {meta['max_length']}, this run asks {max_length}: pass "
                         f"--max_length {meta['max_length']}, or {fix}")
    return load_from_disk(str(path)), meta


def train_from_prepared(training_args: object) -> None:
    """Tell TRL the rows are trainer-ready: no tokenizing or packing again (``skip_prepare_dataset``). The
    assistant-only mask is already in the labels, so TRL's check that the rows are conversational is off too."""
    training_args.dataset_kwargs = {**(training_args.dataset_kwargs or {}), "skip_prepare_dataset": True}
    training_args.assistant_only_loss = False


def rows_for_tokens(max_tokens: int, max_length: int) -> int:
    """Packed rows of ``max_length`` that hold ``max_tokens`` (at least one)."""
    return max(1, math.ceil(max_tokens / max_length))
