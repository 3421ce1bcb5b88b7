"""Load the coding-task suite (``tasks/python/*`` and ``tasks/rust/*``) as a ``datasets.Dataset``.

Each task is a folder (the format is described in ``tasks/README.md``)::

    tasks/<language>/<name>/
        prompt.md          what to write, with the signature
        tests.py|tests.rs  the tests (Python: test_* functions / unittest importing ``solution``;
                           Rust: a ``#[cfg(test)] mod tests`` appended to the solution)
        solution.py|.rs    the reference solution
        meta.json          {"entry_point": str, "difficulty": 1-5, "tags": [str, ...], "split"?: "train"|"test"}

The split is fixed per task: ``meta.json`` may pin it, otherwise a SHA-256 of ``"<language>/<name>"``
puts about 20% of the tasks in "test" (held out). Adding or removing tasks never moves another task.

Usage::

    from rusty_hf.data.tasks import load_tasks
    train = load_tasks(split="train")                 # both languages
    heldout_py = load_tasks(language="python", split="test")
    train[0]["prompt"]   # [{"role": "system", ...}, {"role": "user", "content": "..."}]
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import datasets

LANGUAGES: dict[str, str] = {"python": ".py", "rust": ".rs"}
SPLITS = ("train", "test")
HELD_OUT_PERCENT = 20
DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "tasks"

SYSTEM_PROMPT = "You are Rusty, a small, blunt coding model. You answer with working code and no fluff."
ANSWER_FORMAT = {
    "python": (
        "Reply with the complete `solution.py` in one ```python fenced block, or as an EDIT action: "
        '{"action": "EDIT", "path": "solution.py", "content": "..."}.'
    ),
    "rust": (
        "Reply with the complete `solution.rs` in one ```rust fenced block (no `fn main`, no tests), or as "
        'an EDIT action: {"action": "EDIT", "path": "solution.rs", "content": "..."}.'
    ),
}


class TaskFormatError(ValueError):
    """A task folder is missing a file or has a malformed meta.json."""


@dataclass(frozen=True)
class Task:
    """One task folder, read and checked."""

    name: str
    language: str
    prompt: str
    tests: str
    solution: str
    entry_point: str
    difficulty: int
    tags: tuple[str, ...]
    split: str
    path: Path


def default_split(language: str, name: str) -> str:
    """The split a task falls in unless its meta.json pins one (stable across suite changes)."""
    digest = hashlib.sha256(f"{language}/{name}".encode()).hexdigest()
    return "test" if int(digest[:8], 16) % 100 < HELD_OUT_PERCENT else "train"


def _read(folder: Path, filename: str) -> str:
    path = folder / filename
    if not path.is_file():
        raise TaskFormatError(f"task folder {folder} has no {filename}; every task needs {_expected(folder)}")
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        raise TaskFormatError(f"{path} is empty")
    return text


def _expected(folder: Path) -> str:
    ext = LANGUAGES.get(folder.parent.name, ".py")
    return f"prompt.md, tests{ext}, solution{ext} and meta.json"


def _check_meta(meta: object, path: Path) -> dict:
    if not isinstance(meta, dict):
        raise TaskFormatError(f"{path} must hold a JSON object, got {type(meta).__name__}")
    problems = []
    if not isinstance(meta.get("entry_point"), str) or not meta["entry_point"].strip():
        problems.append('"entry_point" (a non-empty string, the function or class to write)')
    difficulty = meta.get("difficulty")
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or not 1 <= difficulty <= 5:
        problems.append('"difficulty" (an integer from 1 to 5)')
    tags = meta.get("tags")
    if not isinstance(tags, list) or not tags or not all(isinstance(t, str) and t for t in tags):
        problems.append('"tags" (a non-empty list of strings)')
    if "split" in meta and meta["split"] not in SPLITS:
        problems.append(f'"split" (optional, one of {list(SPLITS)})')
    if problems:
        raise TaskFormatError(f"{path} needs a valid " + ", ".join(problems))
    return meta


def _check_collects(path: Path, tests: str) -> None:
    """Refuse a Python test file that no solution could make run (the execution reward would score none of it)."""
    # Imported here: the rewards package is heavy, and every caller that scores tasks has it loaded already.
    from rusty_hf.rewards.python_exec.collect import collection_error

    if (problem := collection_error(tests)) is not None:
        raise TaskFormatError(f"{path} cannot be collected: {problem}")


def read_task(folder: str | Path) -> Task:
    """Read and validate one task folder ``tasks/<language>/<name>``."""
    folder = Path(folder)
    language = folder.parent.name
    if language not in LANGUAGES:
        raise TaskFormatError(f"{folder} is not under tasks/python or tasks/rust")
    ext = LANGUAGES[language]
    meta_path = folder / "meta.json"
    try:
        meta = json.loads(_read(folder, "meta.json"))
    except json.JSONDecodeError as exc:
        raise TaskFormatError(f"{meta_path} is not valid JSON: {exc}") from None
    meta = _check_meta(meta, meta_path)
    tests = _read(folder, f"tests{ext}")
    if language == "python":
        _check_collects(folder / f"tests{ext}", tests)
    return Task(
        name=folder.name,
        language=language,
        prompt=_read(folder, "prompt.md"),
        tests=tests,
        solution=_read(folder, f"solution{ext}"),
        entry_point=meta["entry_point"],
        difficulty=meta["difficulty"],
        tags=tuple(meta["tags"]),
        split=meta.get("split") or default_split(language, folder.name),
        path=folder,
    )


def iter_task_folders(root: Path, languages: list[str]) -> list[Path]:
    """Task folders under ``root`` for ``languages``, sorted (hidden folders and caches skipped)."""
    folders = []
    for language in languages:
        base = root / language
        if base.is_dir():
            folders += sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    return folders


def build_messages(task: Task, system_prompt: str | None = SYSTEM_PROMPT) -> list[dict[str, str]]:
    """The chat prompt for a task: optional persona, then the task and the expected answer format."""
    user = f"{task.prompt.strip()}\n\n{ANSWER_FORMAT[task.language]}"
    messages = [{"role": "system", "content": system_prompt}] if system_prompt else []
    return messages + [{"role": "user", "content": user}]


def load_tasks(
    root: str | Path | None = None,
    language: str | None = None,
    split: str | None = None,
    system_prompt: str | None = SYSTEM_PROMPT,
) -> datasets.Dataset:
    """Load the task suite as a Dataset, one row per task.

    Args:
        root: the tasks directory (default: the repository's ``tasks/``).
        language: "python", "rust", or None for both.
        split: "train", "test" (held out), or None for both.
        system_prompt: the system message opening each prompt; None leaves it out.

    Returns:
        A Dataset with columns prompt (chat messages), tests, solution, language, difficulty,
        name, tags, entry_point, split -- sorted by language, then name.
    """
    root = Path(root) if root is not None else DEFAULT_ROOT
    if not root.is_dir():
        raise FileNotFoundError(f"tasks directory {root} not found; pass root= pointing at the repository's tasks/")
    if language is not None and language not in LANGUAGES:
        raise ValueError(f"language must be one of {sorted(LANGUAGES)} or None, got {language!r}")
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {list(SPLITS)} or None, got {split!r}")
    tasks = [read_task(f) for f in iter_task_folders(root, [language] if language else sorted(LANGUAGES))]
    if not tasks:
        raise FileNotFoundError(f"no task folders under {root}/<python|rust>/")
    rows = [
        {
            "prompt": build_messages(t, system_prompt),
            "tests": t.tests,
            "solution": t.solution,
            "language": t.language,
            "difficulty": t.difficulty,
            "name": t.name,
            "tags": list(t.tags),
            "entry_point": t.entry_point,
            "split": t.split,
        }
        for t in tasks
        if split is None or t.split == split
    ]
    return datasets.Dataset.from_list(rows, features=_features())


def _features() -> datasets.Features:
    # Explicit features keep the schema (and so the fingerprint) identical for any subset, even an empty one.
    message = {"role": datasets.Value("string"), "content": datasets.Value("string")}
    return datasets.Features(
        {
            "prompt": datasets.List(message),
            "tests": datasets.Value("string"),
            "solution": datasets.Value("string"),
            "language": datasets.Value("string"),
            "difficulty": datasets.Value("int32"),
            "name": datasets.Value("string"),
            "tags": datasets.List(datasets.Value("string")),
            "entry_point": datasets.Value("string"),
            "split": datasets.Value("string"),
        }
    )
