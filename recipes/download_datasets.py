"""Save Hugging Face Hub datasets locally for the tokenizer corpus (and later recipes).

    python recipes/download_datasets.py --datasets bigcode/the-stack-smol:data/rust --max_rows 20000

Each ``repo_id[:config]`` is streamed (only ``--max_rows`` rows are fetched) and written with
``save_to_disk`` to ``--data_dir/owner__name[--config]``, where `rusty_hf.data.corpus.iter_corpus`
reads it back with ``load_from_disk``. When the Hub cannot be reached (no network, ``HF_HUB_OFFLINE=1``)
it prints one line saying so and exits 0, so a pipeline that calls it goes on with the local corpus.
A wrong dataset name is a user error: one line naming the fix, exit 2.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys
from dataclasses import dataclass, field

from transformers import HfArgumentParser

from rusty_hf.data.corpus import DEFAULT_DATA_DIR, download_datasets
from rusty_hf.errors import run_recipe


@dataclass
class DownloadArguments:
    datasets: list[str] = field(default_factory=list, metadata={"help": "repo_id or repo_id:config, one or more."})
    data_dir: str = field(default=str(DEFAULT_DATA_DIR), metadata={"help": "Where the datasets are saved."})
    split: str = field(default="train", metadata={"help": "Split to save."})
    max_rows: int = field(default=20_000, metadata={"help": "Rows saved per dataset (0 = all of them)."})
    timeout: float = field(default=10.0, metadata={"help": "Seconds to wait for the Hub before going offline."})


def main(args: DownloadArguments) -> int:
    if not args.datasets:
        print("[datasets] nothing to download (pass --datasets repo_id[:config] ...)")
        return 0
    download_datasets(args.datasets, args.data_dir, split=args.split, max_rows=args.max_rows or None, timeout=args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(run_recipe("download_datasets.py", HfArgumentParser(DownloadArguments), main))
