"""Tests for the task suite (tasks/) and its loader (rusty_hf/data/tasks.py).

Every reference solution runs through rusty_hf.sandbox (Python under the execution reward's
harness, Rust with the real rustc) and must pass all its tests; a stub solution must fail.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_rust

from rusty_hf.data.code_corpus import heldout_files
from rusty_hf.data.dedup import LeakGuard
from rusty_hf.data.tasks import DEFAULT_ROOT, SPLITS, TaskFormatError, default_split, load_tasks, read_task
from rusty_hf.rewards.python_exec.execution import default_workers, run_python_tests
from rusty_hf.sandbox import Limits, run
from tests.task_guessers import guessers, run_tests_directly

COLUMNS = {"prompt", "tests", "solution", "language", "difficulty", "name", "tags", "entry_point", "split"}
RUST_RESULT = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed")


def _parallel(fn, items) -> list:
    with ThreadPoolExecutor(max_workers=default_workers()) as pool:
        return list(pool.map(fn, items))


def python_stub(solution: str) -> str:
    """The reference's top-level functions and classes, each replaced by ``def name(*a, **k): return None``."""
    names = [n.name for n in ast.parse(solution).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    return "".join(f"def {name}(*a, **k):\n    return None\n\n" for name in names)


def rust_stub(solution: str) -> str:
    """The reference with every function body replaced by ``{ todo!() }`` (it still compiles)."""
    source = solution.encode()
    tree = tree_sitter.Parser(tree_sitter.Language(tree_sitter_rust.language())).parse(source)
    bodies, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_item":
            body = node.child_by_field_name("body")
            bodies.append((body.start_byte, body.end_byte))
        else:
            stack.extend(node.children)
    for start, end in sorted(bodies, reverse=True):
        source = source[:start] + b"{ todo!() }" + source[end:]
    return source.decode()


@pytest.fixture(scope="module")
def rust_sysroot() -> str:
    rustc = shutil.which("rustc") or str(Path.home() / ".cargo/bin/rustc")
    if not Path(rustc).exists():
        pytest.skip("rustc not found: install it with rustup (https://rustup.rs)")
    return subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()


def run_rust_tests(code: str, tests: str, sysroot: str) -> tuple[int, int, str]:
    """Compile ``code`` + ``tests`` with ``rustc --test`` in the sandbox, run them: (passed, total, log)."""
    script = f"{sysroot}/bin/rustc --edition 2021 --test -o tests_bin main.rs && ./tests_bin"
    result = run(
        ["/bin/sh", "-c", script],
        files={"main.rs": f"{code}\n{tests}"},
        ro_paths=[sysroot],
        timeout=120,
        limits=Limits(cpu_s=60, memory_mb=4096),
    )
    counts = RUST_RESULT.search(result.stdout)
    if counts is None:
        return 0, 0, (result.stderr or result.stdout)[-800:]
    passed, failed = int(counts.group(1)), int(counts.group(2))
    return passed, passed + failed, result.stdout[-800:]


# --- the suite itself -----------------------------------------------------------------------


def test_suite_has_enough_tasks_of_each_language():
    ds = load_tasks()
    counts = Counter(zip(ds["language"], ds["split"]))
    # enough held-out tasks for pass@1 to move in steps of 0.025 (Python) and 0.05 (Rust)
    assert counts["python", "train"] + counts["python", "test"] >= 150 and counts["python", "test"] >= 40
    assert counts["rust", "train"] + counts["rust", "test"] >= 60 and counts["rust", "test"] >= 20
    assert "sum_list" in load_tasks(language="python")["name"]


def test_every_difficulty_from_one_to_three_is_held_out_in_both_languages():
    held_out = load_tasks(split="test")
    levels = Counter(zip(held_out["language"], held_out["difficulty"]))
    assert all(levels[language, d] >= 3 for language in ("python", "rust") for d in (1, 2, 3))


def test_a_task_held_out_in_one_language_is_held_out_in_both():
    # fizzbuzz trained in Python and scored in Rust would measure recall of the training answer, not coding
    splits: dict[str, set[str]] = {}
    for row in load_tasks():
        splits.setdefault(row["name"], set()).add(row["split"])
    assert {name: s for name, s in splits.items() if len(s) > 1} == {}


def test_no_training_task_copies_a_held_out_one():
    # The corpus's leak guard (8 shared lines, or half a held-out file's shingles) over every training task's
    # prompt, tests and solution: SFT and RL train on these, so a near-copy would inflate held-out pass@1.
    guard = LeakGuard(heldout_files())
    leaks = {}
    for row in load_tasks(split="train", system_prompt=None):
        for part, text in (("prompt", row["prompt"][-1]["content"]), ("tests", row["tests"]), ("solution", row["solution"])):
            if hit := guard.leak(text):
                leaks[f"{row['language']}/{row['name']}/{part}"] = hit
    assert leaks == {}


def test_tasks_are_varied():
    tags = {tag for row in load_tasks()["tags"] for tag in row}
    wanted = {"strings", "lists", "dicts", "parsing", "math", "recursion", "iterators", "errors", "classes"}
    assert wanted | {"result", "option", "traits", "structs", "enums", "error-types"} <= tags


def test_python_reference_solutions_pass_in_sandbox():
    ds = load_tasks(language="python")
    outcomes = _parallel(lambda row: run_python_tests(row["solution"], row["tests"]), list(ds))
    failing = {
        row["name"]: (o.passed, o.total, o.failures)
        for row, o in zip(ds, outcomes)
        if o.total == 0 or o.passed != o.total
    }
    assert failing == {}


def test_python_stub_solutions_fail():
    ds = load_tasks(language="python")
    outcomes = _parallel(lambda row: run_python_tests(python_stub(row["solution"]), row["tests"]), list(ds))
    passing = [row["name"] for row, o in zip(ds, outcomes) if o.total == 0 or o.passed == o.total]
    assert passing == []


def test_no_python_test_passes_for_a_constant_a_blanket_raise_or_an_echo():
    # Each test must observe a value that a solution has to compute: a policy that learns to answer
    # every call with True, [] or a ValueError, or to hand its input back, earns no test credit.
    passing = {}
    for row in load_tasks(language="python"):
        for label, code in guessers(row["solution"]):
            for test, passed in run_tests_directly(row["tests"], code).items():
                if passed:
                    passing.setdefault(f"{row['name']}::{test}", []).append(label)
    assert passing == {}


def test_python_reference_solutions_pass_when_run_directly():
    # The tests stay plain Python: pytest next to a real solution.py (what CodingEnv's work dir does).
    failing = {}
    for row in load_tasks(language="python"):
        results = run_tests_directly(row["tests"], row["solution"])
        if not results or not all(results.values()):
            failing[row["name"]] = [test for test, passed in results.items() if not passed]
    assert failing == {}


def test_rust_reference_solutions_pass_and_stubs_fail(rust_sysroot):
    ds = list(load_tasks(language="rust"))
    jobs = [(row, row["solution"]) for row in ds] + [(row, rust_stub(row["solution"])) for row in ds]
    results = _parallel(lambda job: run_rust_tests(job[1], job[0]["tests"], rust_sysroot), jobs)
    references, stubs = results[: len(ds)], results[len(ds) :]
    failing = {row["name"]: log for row, (p, t, log) in zip(ds, references) if t == 0 or p != t}
    assert failing == {}
    # a stub must compile (total > 0) and fail at least one test
    not_failing = {row["name"]: (p, t) for row, (p, t, _) in zip(ds, stubs) if t == 0 or p == t}
    assert not_failing == {}


# --- the loader -----------------------------------------------------------------------------


def test_loader_columns_and_types():
    ds = load_tasks()
    assert set(ds.column_names) == COLUMNS
    row = ds[0]
    assert row["prompt"][-1]["role"] == "user" and row["language"] in ("python", "rust")
    assert isinstance(row["difficulty"], int) and 1 <= row["difficulty"] <= 5
    assert isinstance(row["tags"], list) and row["tags"]


def test_prompt_is_chat_with_task_and_answer_format():
    row = load_tasks(language="python").filter(lambda r: r["name"] == "sum_list")[0]
    system, user = row["prompt"]
    assert system["role"] == "system" and "Rusty" in system["content"]
    assert "def sum_list" in user["content"] and "EDIT" in user["content"] and "```python" in user["content"]


def test_system_prompt_can_be_left_out():
    row = load_tasks(language="rust", system_prompt=None)[0]
    assert [m["role"] for m in row["prompt"]] == ["user"]
    assert "```rust" in row["prompt"][0]["content"]


def _keys(ds) -> set[tuple[str, str]]:
    return {(r["language"], r["name"]) for r in ds}


def test_splits_are_disjoint_and_cover_everything():
    train, test, everything = _keys(load_tasks(split="train")), _keys(load_tasks(split="test")), _keys(load_tasks())
    assert train.isdisjoint(test) and train | test == everything


def test_both_languages_have_held_out_tasks():
    held_out = load_tasks(split="test")["language"]
    assert held_out.count("python") >= 4 and held_out.count("rust") >= 2


def test_split_is_a_pinned_function_of_the_name():
    # These values are part of the suite's contract: changing the hash would move tasks.
    assert default_split("python", "sum_list") == "train"
    assert default_split("python", "factorial") == "test"
    assert default_split("rust", "config_parser") == "test"


def _copy_task(src: Path, root: Path, language: str, name: str) -> Path:
    dst = root / language / name
    shutil.copytree(src, dst)
    return dst


def test_adding_tasks_does_not_move_others(tmp_path):
    before = {r["name"]: r["split"] for r in load_tasks(language="python")}
    shutil.copytree(DEFAULT_ROOT / "python", tmp_path / "python")
    for i in range(10):
        _copy_task(DEFAULT_ROOT / "python" / "sum_list", tmp_path, "python", f"extra_{i}")
    after = {r["name"]: r["split"] for r in load_tasks(tmp_path, language="python")}
    assert {name: after[name] for name in before} == before


def test_meta_can_pin_the_split(tmp_path):
    folder = _copy_task(DEFAULT_ROOT / "python" / "sum_list", tmp_path, "python", "sum_list")
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "split": "test"}))
    assert load_tasks(tmp_path)["split"] == ["test"]


def test_missing_file_error_names_folder_and_file(tmp_path):
    folder = _copy_task(DEFAULT_ROOT / "python" / "sum_list", tmp_path, "python", "broken")
    (folder / "tests.py").unlink()
    with pytest.raises(TaskFormatError, match=r"broken.*tests\.py"):
        load_tasks(tmp_path)


def test_a_python_test_file_that_cannot_be_collected_is_a_clear_error(tmp_path):
    # The execution reward would score none of its samples: refused when the tasks load, naming the file.
    folder = _copy_task(DEFAULT_ROOT / "python" / "sum_list", tmp_path, "python", "broken")
    (folder / "tests.py").write_text("from solution import *\n\nassert sum_list([1, 2]) == 3\n")
    with pytest.raises(TaskFormatError, match=r"broken/tests\.py cannot be collected: it defines no test"):
        load_tasks(tmp_path)


@pytest.mark.parametrize(
    "meta, complaint",
    [
        ('{"entry_point": "f", "difficulty": 9, "tags": ["x"]}', "difficulty"),
        ('{"entry_point": "f", "difficulty": 2, "tags": []}', "tags"),
        ('{"difficulty": 2, "tags": ["x"]}', "entry_point"),
        ('{"entry_point": "f", "difficulty": 2, "tags": ["x"], "split": "dev"}', "split"),
        ("{not json", "not valid JSON"),
    ],
)
def test_malformed_meta_is_a_clear_error(tmp_path, meta, complaint):
    folder = _copy_task(DEFAULT_ROOT / "rust" / "sum_slice", tmp_path, "rust", "bad_meta")
    (folder / "meta.json").write_text(meta)
    with pytest.raises(TaskFormatError, match=complaint) as info:
        read_task(folder)
    assert "bad_meta" in str(info.value)


def test_bad_arguments_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="split must be one of"):
        load_tasks(split="validation")
    with pytest.raises(ValueError, match="language must be one of"):
        load_tasks(language="go")
    with pytest.raises(FileNotFoundError, match="pass root="):
        load_tasks(tmp_path / "nowhere")
    assert SPLITS == ("train", "test")
