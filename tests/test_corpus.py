"""Tests for rusty_hf.data.corpus, rusty_hf.data.dialogs and recipes/download_datasets.py (no network)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from rusty_hf.data.corpus import (
    cap_bytes,
    dataset_folder,
    download_datasets,
    iter_corpus,
    stdlib_files,
    task_texts,
)
from rusty_hf.data.dialogs import synthetic_dialogs
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT

REPO = Path(__file__).resolve().parents[1]


def _nbytes(texts) -> int:
    return sum(len(t.encode("utf-8")) for t in texts)


def test_iter_corpus_stops_exactly_at_its_byte_cap(tmp_path):
    texts = list(iter_corpus(200_000, tasks_dir=tmp_path, n_dialogs=20))
    assert _nbytes(texts) == 200_000


def test_byte_cap_never_splits_a_character():
    texts = list(cap_bytes(["ab", "日本語"], 6))  # 2 bytes + 4 of the 9 bytes: only "日" (3 bytes) fits
    assert texts == ["ab", "日"]


def test_corpus_includes_stdlib_sources(tmp_path):
    first_stdlib_file = stdlib_files()[0].read_text(encoding="utf-8", errors="replace")
    assert first_stdlib_file in list(iter_corpus(4 * 2**20, tasks_dir=tmp_path, n_dialogs=5))


def test_stdlib_files_skip_site_packages_and_tests():
    parts = {part for path in stdlib_files() for part in path.parts}
    assert not parts & {"site-packages", "dist-packages", "test", "tests"}


def test_heldout_stdlib_files_are_not_trained_on():
    train, heldout = set(stdlib_files(split="train")), set(stdlib_files(split="heldout"))
    assert heldout and not train & heldout


def test_task_texts_read_code_and_docs_only(tmp_path):
    (tmp_path / "rust" / "add").mkdir(parents=True)
    (tmp_path / "rust" / "add" / "lib.rs").write_text("pub fn add() {}\n")
    (tmp_path / "rust" / "add" / "prompt.md").write_text("Write add.\n")
    (tmp_path / "rust" / "add" / "blob.bin").write_bytes(b"\x00\x01")
    assert sorted(task_texts(tmp_path)) == ["Write add.\n", "pub fn add() {}\n"]


def test_held_out_tasks_never_reach_the_tokenizer_corpus():
    from rusty_hf.data.tasks import load_tasks

    corpus = "\n".join(task_texts())
    held_out = load_tasks(split="test")
    assert len(held_out) > 0
    for row in held_out:
        assert row["solution"] not in corpus and row["tests"] not in corpus, row["name"]
    for row in load_tasks(split="train").select(range(5)):
        assert row["solution"] in corpus


def test_a_pinned_held_out_task_is_left_out(tmp_path):
    folder = tmp_path / "python" / "sum_list"
    folder.mkdir(parents=True)
    (folder / "solution.py").write_text("def sum_list(xs):\n    return sum(xs)\n")
    (folder / "meta.json").write_text('{"entry_point": "sum_list", "difficulty": 1, "tags": ["lists"], "split": "test"}')
    assert list(task_texts(tmp_path)) == []
    (folder / "meta.json").write_text('{"entry_point": "sum_list", "difficulty": 1, "tags": ["lists"], "split": "train"}')
    assert len(list(task_texts(tmp_path))) == 2


def test_missing_tasks_folder_contributes_nothing(tmp_path):
    assert list(task_texts(tmp_path / "absent")) == []


def test_saved_dataset_is_read_back_into_the_corpus(tmp_path):
    from datasets import Dataset

    spec = "someone/rust-snippets:small"
    rows = [{"id": "1", "content": "fn zebra_marker() {}"}, {"id": "2", "content": "fn other() {}"}]
    Dataset.from_list(rows).save_to_disk(str(dataset_folder(spec, tmp_path)))
    texts = list(iter_corpus(100 * 2**20, datasets=[spec], data_dir=tmp_path, tasks_dir=tmp_path, n_dialogs=1))
    assert texts[-2:] == ["fn zebra_marker() {}", "fn other() {}"]  # the text column, not the id


def test_download_offline_prints_one_line_and_saves_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert download_datasets(["a/b", "c/d"], tmp_path) == []
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "unreachable" in out[0] and not any(tmp_path.iterdir())


def test_download_recipe_exits_zero_offline(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec = importlib.util.spec_from_file_location("recipes_download_datasets", REPO / "recipes/download_datasets.py")
    recipe = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = recipe  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(recipe)
    assert recipe.main(recipe.DownloadArguments(datasets=["a/b"], data_dir=str(tmp_path))) == 0


# rusty_hf.data.dialogs (small enough to share this file)

def test_dialogs_are_deterministic_per_seed():
    assert synthetic_dialogs(20, seed=7) == synthetic_dialogs(20, seed=7)
    assert synthetic_dialogs(20, seed=7) != synthetic_dialogs(20, seed=8)


def test_every_dialog_is_persona_request_and_one_json_action():
    keys = {"MSG": {"action", "message"}, "CMD": {"action", "command"}, "EDIT": {"action", "path", "content"}}
    for system, user, assistant in synthetic_dialogs(200, seed=0):
        action = json.loads(assistant["content"])
        assert (system["role"], user["role"], assistant["role"]) == ("system", "user", "assistant")
        assert system["content"] == RUSTY_SYSTEM_PROMPT and user["content"]
        assert set(action) == keys[action["action"]]


def test_dialogs_cover_all_three_actions_and_real_commands():
    actions = [json.loads(d[2]["content"]) for d in synthetic_dialogs(300, seed=1)]
    assert {a["action"] for a in actions} == {"MSG", "CMD", "EDIT"}
    programs = {a["command"].split()[0] for a in actions if a["action"] == "CMD"}
    assert {"ls", "grep", "cargo", "pytest", "git"} <= programs


def test_python_edits_are_valid_python():
    edits = [json.loads(d[2]["content"]) for d in synthetic_dialogs(300, seed=2)]
    python_edits = [e for e in edits if e["action"] == "EDIT" and e["path"].endswith(".py")]
    assert python_edits
    for edit in python_edits:
        compile(edit["content"], edit["path"], "exec")
