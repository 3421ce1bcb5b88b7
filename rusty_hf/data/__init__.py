"""Data for Rusty: the tokenizer corpus and synthetic protocol dialogs.

    from rusty_hf.data import iter_corpus, synthetic_dialogs
"""

from rusty_hf.data.corpus import download_datasets, iter_corpus, stdlib_texts
from rusty_hf.data.dialogs import synthetic_dialogs

__all__ = ["download_datasets", "iter_corpus", "stdlib_texts", "synthetic_dialogs"]
