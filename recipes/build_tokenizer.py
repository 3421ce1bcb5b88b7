"""Build Rusty's 24K byte-level BPE tokenizer and save it as a transformers tokenizer folder.

    python recipes/build_tokenizer.py                                   # -> outputs/tokenizer
    python recipes/build_tokenizer.py --max_corpus_mb 8 --output_dir outputs/tokenizer
    python recipes/build_tokenizer.py --datasets bigcode/the-stack-smol:data/rust

The corpus is local and always available (synthetic protocol dialogs, tasks/, the Python standard
library); ``--datasets`` adds Hub datasets, downloaded first when not yet under ``--data_dir`` (offline,
one line says so and the build goes on). Prints the corpus size, training time, vocabulary size, sample
encodings and characters per token on held-out standard-library files. Load the result with
``rusty_hf.tokenizer.load_tokenizer(output_dir)`` or ``AutoTokenizer.from_pretrained(output_dir)``.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys
import time
from dataclasses import dataclass, field

from transformers import HfArgumentParser, PreTrainedTokenizerBase

from rusty_hf.data.corpus import (
    DEFAULT_DATA_DIR,
    DEFAULT_MAX_BYTES,
    cap_bytes,
    dataset_folder,
    download_datasets,
    iter_corpus,
    stdlib_texts,
)
from rusty_hf.tokenizer import DEFAULT_VOCAB_SIZE, check_tokenizer, train_tokenizer
from rusty_hf.errors import run_recipe

SAMPLES = [
    "def fib(n: int) -> int:\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
    'fn main() {\n    println!("{}", 1 + 2);\n}\n',
    '{"action": "CMD", "command": "cargo test --release"}',
    "Ünïcödé ✓ 日本語 🦀",
]


@dataclass
class TokenizerArguments:
    output_dir: str = field(default="outputs/tokenizer", metadata={"help": "Folder the tokenizer is saved to."})
    vocab_size: int = field(default=DEFAULT_VOCAB_SIZE, metadata={"help": "Vocabulary size, specials included."})
    min_frequency: int = field(default=2, metadata={"help": "A pair must occur this often to be merged."})
    max_corpus_mb: float = field(
        default=DEFAULT_MAX_BYTES / 2**20,
        metadata={"help": "Corpus cap in MiB. The default takes the whole local corpus (~12 MiB) and trains "
                          "in well under a minute on 2 cores; Hub datasets fill what is left."},
    )
    datasets: list[str] = field(
        default_factory=list, metadata={"help": "Hub datasets as repo_id or repo_id:config (optional)."}
    )
    data_dir: str = field(default=str(DEFAULT_DATA_DIR), metadata={"help": "Where Hub datasets are saved."})
    n_dialogs: int = field(default=2000, metadata={"help": "Synthetic protocol dialogs in the corpus."})
    include_stdlib_tests: bool = field(default=False, metadata={"help": "Also read the stdlib's test folders."})
    heldout_mb: float = field(default=2.0, metadata={"help": "Held-out stdlib text used to report chars/token."})

    def __post_init__(self) -> None:
        if self.max_corpus_mb <= 0 or self.heldout_mb <= 0:
            raise ValueError("--max_corpus_mb and --heldout_mb must be positive")


def chars_per_token(tokenizer: PreTrainedTokenizerBase, texts: list[str]) -> float:
    """Average characters per token over ``texts`` (higher means better compression)."""
    ids = tokenizer(texts, add_special_tokens=False)["input_ids"]
    return sum(map(len, texts)) / max(1, sum(map(len, ids)))


def show_samples(tokenizer: PreTrainedTokenizerBase) -> None:
    for text in SAMPLES:
        ids = tokenizer.encode(text, add_special_tokens=False)
        pieces = [tokenizer.decode([i]) for i in ids]
        print(f"  {len(text):3d} chars -> {len(ids):3d} tokens: {pieces}")


def main(args: TokenizerArguments) -> PreTrainedTokenizerBase:
    missing = [spec for spec in args.datasets if not dataset_folder(spec, args.data_dir).is_dir()]
    if missing:
        download_datasets(missing, args.data_dir)  # offline: one line, and the build goes on without them
    saved = [spec for spec in args.datasets if dataset_folder(spec, args.data_dir).is_dir()]

    start = time.perf_counter()
    texts = list(iter_corpus(
        int(args.max_corpus_mb * 2**20),
        datasets=saved,
        data_dir=args.data_dir,
        n_dialogs=args.n_dialogs,
        include_stdlib_tests=args.include_stdlib_tests,
    ))
    corpus_bytes = sum(len(t.encode("utf-8")) for t in texts)
    print(f"[tokenizer] corpus: {len(texts)} documents, {corpus_bytes / 2**20:.1f} MiB "
          f"(cap {args.max_corpus_mb:g} MiB), read in {time.perf_counter() - start:.1f}s")

    start = time.perf_counter()
    tokenizer = train_tokenizer(texts, vocab_size=args.vocab_size, min_frequency=args.min_frequency)
    print(f"[tokenizer] trained {len(tokenizer)} tokens in {time.perf_counter() - start:.1f}s")

    check_tokenizer(tokenizer, vocab_size=args.vocab_size)
    tokenizer.save_pretrained(args.output_dir)

    heldout = list(cap_bytes(stdlib_texts(split="heldout"), int(args.heldout_mb * 2**20)))
    print(f"[tokenizer] held-out stdlib ({sum(map(len, heldout)) / 1e6:.1f}M chars): "
          f"{chars_per_token(tokenizer, heldout):.2f} chars/token")
    print("[tokenizer] samples:")
    show_samples(tokenizer)
    print(f"[tokenizer] saved to {args.output_dir} (load with AutoTokenizer.from_pretrained or load_tokenizer)")
    return tokenizer


if __name__ == "__main__":
    # A bad name or a corpus too small for the vocabulary: one line on stderr, exit status 2.
    sys.exit(run_recipe("build_tokenizer.py", HfArgumentParser(TokenizerArguments), main))
