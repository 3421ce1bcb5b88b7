"""The tokenizer's training corpus: local text that is always there, plus Hub datasets saved to disk.

    from rusty_hf.data.corpus import iter_corpus
    texts = iter_corpus(max_bytes=32 * 2**20)                      # local sources only
    texts = iter_corpus(datasets=["bigcode/the-stack-smol:data/rust"])  # + a dataset saved earlier

Sources, read in this order until ``max_bytes`` (UTF-8) is reached:

1. synthetic protocol dialogs (`rusty_hf.data.dialogs`), rendered as plain ``role: content`` lines
   (no chat markers: the BPE trainer would otherwise spend merges on marker fragments);
2. text files under the repository's ``tasks/`` (``*.py *.rs *.md *.json *.txt``), if any, except the
   held-out tasks';
3. the Python standard library's ``.py`` sources (``sysconfig.get_paths()["stdlib"]``, never
   site-packages, test folders optional); one file in twenty is held out (``split="heldout"``) to
   measure compression on text the tokenizer never saw;
4. Hub datasets named as ``repo_id`` or ``repo_id:config``, read with ``datasets.load_from_disk`` from
   ``data_dir``. `download_datasets` (``recipes/download_datasets.py``) puts them there; when the Hub
   cannot be reached it prints one line saying so and the build goes on with the local sources.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import sysconfig
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from rusty_hf.data.dialogs import synthetic_dialogs
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT
from rusty_hf.errors import UserError

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TASKS_DIR = REPO_ROOT / "tasks"
DEFAULT_DATA_DIR = Path("data/datasets")
DEFAULT_MAX_BYTES = 32 * 2**20
TASK_SUFFIXES = (".py", ".rs", ".md", ".json", ".txt")
TEST_DIRS = {"test", "tests", "idle_test"}
SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}
_HELDOUT_EVERY = 20
# Columns that hold the text of a row in common text/code datasets; other string columns (ids, licenses,
# repo names) are read only when none of these exist.
_TEXT_COLUMNS = ("text", "content", "code", "messages", "prompt", "completion", "question", "answer", "solution")


def render_dialog_text(messages: Sequence[dict[str, str]]) -> str:
    """``role: content`` lines for the user/assistant turns (the persona is added once per corpus)."""
    return "".join(f"{m['role']}: {m['content']}\n" for m in messages if m["role"] != "system")


def dialog_texts(n: int = 2000, seed: int = 0) -> Iterator[str]:
    yield f"system: {RUSTY_SYSTEM_PROMPT}\n"
    for messages in synthetic_dialogs(n, seed=seed):
        yield render_dialog_text(messages)


def _held_out_folders(root: Path) -> set[Path]:
    """The folders of held-out tasks (``tasks/<language>/<name>`` with split "test") under ``root``."""
    from rusty_hf.data.tasks import LANGUAGES, default_split

    held_out = set()
    for language in LANGUAGES:
        for folder in (root / language).glob("*/"):
            try:
                split = json.loads((folder / "meta.json").read_text(encoding="utf-8")).get("split")
            except (OSError, ValueError, AttributeError):
                split = None  # a malformed meta.json: the split its name gives, as for unpinned tasks
            if (split or default_split(language, folder.name)) == "test":
                held_out.add(folder)
    return held_out


def task_texts(tasks_dir: str | os.PathLike | None = None) -> Iterator[str]:
    """Every training task's files with a text suffix, in path order; nothing if the folder is missing.

    Held-out tasks are left out: the tokenizer is training data too, and the evaluation's numbers are
    only honest if none of its texts were seen.
    """
    root = Path(tasks_dir) if tasks_dir is not None else DEFAULT_TASKS_DIR
    if not root.is_dir():
        return
    held_out = _held_out_folders(root)
    for path in sorted(root.rglob("*")):
        if path.suffix in TASK_SUFFIXES and path.is_file() and not held_out & set(path.parents):
            yield path.read_text(encoding="utf-8", errors="replace")


@functools.lru_cache(maxsize=4)
def _python_files(root: Path) -> tuple[Path, ...]:
    return tuple(sorted(root.rglob("*.py")))  # ~1 s over the whole stdlib: walk it once per process


def stdlib_files(include_tests: bool = False, split: str = "train") -> list[Path]:
    """The standard library's ``.py`` files in path order; ``split`` is ``"train"``, ``"heldout"`` or ``"all"``."""
    if split not in ("train", "heldout", "all"):
        raise ValueError(f"split must be 'train', 'heldout' or 'all', got {split!r}")
    root = Path(sysconfig.get_paths()["stdlib"])
    files = []
    for path in _python_files(root):
        parts = set(path.relative_to(root).parts[:-1])
        if parts & SKIP_DIRS or (not include_tests and parts & TEST_DIRS):
            continue
        # A stable hash of the relative path, so the held-out files are the same on every machine.
        heldout = zlib.crc32(path.relative_to(root).as_posix().encode()) % _HELDOUT_EVERY == 0
        if split == "all" or heldout == (split == "heldout"):
            files.append(path)
    return files


def stdlib_texts(include_tests: bool = False, split: str = "train") -> Iterator[str]:
    for path in stdlib_files(include_tests, split):
        yield path.read_text(encoding="utf-8", errors="replace")


def dataset_folder(spec: str, data_dir: str | os.PathLike = DEFAULT_DATA_DIR) -> Path:
    """Where ``repo_id[:config]`` is saved: ``data_dir/owner__name[--config]``."""
    repo_id, _, config = spec.partition(":")
    return Path(data_dir) / (repo_id.replace("/", "__") + (f"--{config.replace('/', '__')}" if config else ""))


def _row_text(row: dict) -> str:
    columns = [c for c in _TEXT_COLUMNS if c in row] or list(row)
    parts = []
    for column in columns:
        value = row[column]
        if isinstance(value, str):
            parts.append(value)
        elif isinstance(value, list):  # chat messages
            parts.extend(m["content"] for m in value if isinstance(m, dict) and isinstance(m.get("content"), str))
    return "\n".join(parts)


def saved_dataset_texts(specs: Iterable[str], data_dir: str | os.PathLike = DEFAULT_DATA_DIR) -> Iterator[str]:
    """Row texts of datasets saved by `download_datasets`; a name that was never saved is skipped with one line."""
    from datasets import DatasetDict, load_from_disk

    for spec in specs:
        folder = dataset_folder(spec, data_dir)
        if not folder.is_dir():
            print(f"[corpus] {spec}: not in {folder}, skipped (run recipes/download_datasets.py --datasets {spec})")
            continue
        dataset = load_from_disk(str(folder))
        if isinstance(dataset, DatasetDict):
            dataset = dataset["train"] if "train" in dataset else next(iter(dataset.values()))
        for row in dataset:
            text = _row_text(row)
            if text:
                yield text


def cap_bytes(texts: Iterable[str], max_bytes: int) -> Iterator[str]:
    """Yield ``texts`` until their UTF-8 size reaches ``max_bytes``; the last one is cut to fit exactly."""
    left = max_bytes
    for text in texts:
        if left <= 0:
            return
        data = text.encode("utf-8")
        if len(data) > left:
            text = data[:left].decode("utf-8", errors="ignore")  # never split a character
            data = text.encode("utf-8")
        left -= len(data)
        yield text


def iter_corpus(
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    datasets: Sequence[str] = (),
    data_dir: str | os.PathLike = DEFAULT_DATA_DIR,
    tasks_dir: str | os.PathLike | None = None,
    n_dialogs: int = 2000,
    include_stdlib_tests: bool = False,
    seed: int = 0,
) -> Iterator[str]:
    """Dialogs, tasks, stdlib (train split), then saved datasets, capped at ``max_bytes`` in total."""
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    sources = itertools.chain(
        dialog_texts(n_dialogs, seed=seed),
        task_texts(tasks_dir),
        stdlib_texts(include_stdlib_tests, split="train"),
        saved_dataset_texts(datasets, data_dir),
    )
    return cap_bytes(sources, max_bytes)


def _hub_unreachable_reason(repo_id: str, timeout: float) -> str | None:
    """None when the Hub answers for ``repo_id``; otherwise why it cannot be reached.

    Raises ValueError for answers that need the user (unknown name, gated or private dataset).
    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    for flag in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        if os.environ.get(flag, "").strip().lower() in ("1", "true", "yes", "on"):
            return f"{flag} is set"
    try:
        HfApi().dataset_info(repo_id, timeout=timeout)
    except GatedRepoError:
        raise UserError(f"dataset {repo_id!r} is gated: accept its terms on the Hub, then `hf auth login`") from None
    except RepositoryNotFoundError:
        raise UserError(f"dataset {repo_id!r} is not on the Hub: check the name (private? `hf auth login`)") from None
    except Exception as exc:  # noqa: BLE001 - the hub client's transport errors change with its HTTP library
        return f"{type(exc).__name__}: {exc}"
    return None


def download_datasets(
    specs: Sequence[str],
    data_dir: str | os.PathLike = DEFAULT_DATA_DIR,
    split: str = "train",
    max_rows: int | None = 20_000,
    timeout: float = 10.0,
) -> list[Path]:
    """Save the first ``max_rows`` rows of each ``repo_id[:config]`` under ``data_dir``; return the folders.

    Rows are streamed, so a large dataset is never downloaded whole. When the Hub is unreachable this
    prints one line and returns the folders saved so far (possibly none): callers go on with local text.
    """
    from datasets import Dataset, load_dataset

    saved = []
    for spec in specs:
        repo_id, _, config = spec.partition(":")
        reason = _hub_unreachable_reason(repo_id, timeout)
        if reason is not None:
            print(f"[datasets] Hugging Face Hub unreachable ({reason}); skipping {', '.join(specs[len(saved):])}, "
                  "continuing with the local corpus")
            break
        stream = load_dataset(repo_id, config or None, split=split, streaming=True)
        rows = list(stream.take(max_rows) if max_rows else stream)
        folder = dataset_folder(spec, data_dir)
        Dataset.from_list(rows, features=stream.features).save_to_disk(str(folder))
        print(f"[datasets] {spec}: {len(rows)} rows -> {folder}")
        saved.append(folder)
    return saved
