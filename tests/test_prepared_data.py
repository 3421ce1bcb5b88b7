"""Prepared data (rusty_hf.training.prepared_data): the rows TRL would make, stored compactly, train the same run.

Pretraining and SFT each run twice on a tiny model: once from text (TRL tokenizes and packs), once from the
folder `--save_prepared_to` wrote. The rows, their order and so the losses must match; the ids are uint16.
"""

import json

import pytest
from datasets import Dataset, DatasetDict, load_from_disk
from trl import ModelConfig, SFTConfig, TrlParser

from rusty_hf.training.arguments import PretrainScriptArguments, RustyScriptArguments
from rusty_hf.training.prepared_data import PREPARED_FILE, compact, is_prepared

pytestmark = pytest.mark.slow

TEXTS = [f"def add_{i}(a, b):\n    return a + b + {i}\n" if i % 2 else f'fn main() {{\n    println!("{i}");\n}}\n'
         for i in range(40)]


@pytest.fixture()
def tok_dir(tmp_path, tiny_tokenizer):
    tiny_tokenizer.save_pretrained(tmp_path / "tok")
    return str(tmp_path / "tok")


def _corpus(path) -> str:
    DatasetDict({"train": Dataset.from_dict({"text": TEXTS[:32]}),
                 "validation": Dataset.from_dict({"text": TEXTS[32:]})}).save_to_disk(str(path))
    return str(path)


def _pretrain(tmp_path, tok_dir: str, name: str, *extra: str):
    from recipes.pretrain import main

    args = ["--config", "recipes/tiny/pretrain.yaml", "--tokenizer_name_or_path", tok_dir, "--output_dir",
            str(tmp_path / name), "--max_steps", "2", "--eval_steps", "2", "--d_embed", "16", "--d_hidden", "32",
            "--max_length", "32", "--per_device_train_batch_size", "2", "--per_device_eval_batch_size", "2",
            "--logging_steps", "1", "--save_strategy", "no", "--use_cpu", "true", "--report_to", "none", *extra]
    return main(*TrlParser((PretrainScriptArguments, SFTConfig, ModelConfig)).parse_args_and_config(args=args))


def _sft(tmp_path, tok_dir: str, name: str, *extra: str):
    from recipes.sft import main

    args = ["--config", "recipes/tiny/sft.yaml", "--tokenizer_name_or_path", tok_dir, "--output_dir", str(tmp_path / name),
            "--max_steps", "2", "--num_dialogs", "8", "--num_terminal", "0", "--task_repeats", "1", "--task_languages", "python",
            "--d_embed", "16", "--d_hidden", "32", "--n_layers", "1", "--max_length", "512",
            "--per_device_train_batch_size", "2", "--logging_steps", "1", "--save_strategy", "no", "--use_cpu", "true",
            "--report_to", "none", *extra]
    return main(*TrlParser((RustyScriptArguments, SFTConfig, ModelConfig)).parse_args_and_config(args=args))


def _losses(trainer) -> list[float]:
    return [log["loss"] for log in trainer.state.log_history if "loss" in log]


def test_pretraining_from_a_prepared_folder_trains_the_same_steps_from_uint16_ids(tmp_path, tok_dir):
    corpus = _corpus(tmp_path / "corpus")
    direct = _pretrain(tmp_path, tok_dir, "direct", "--dataset_path", corpus)
    _pretrain(tmp_path, tok_dir, "prep", "--dataset_path", corpus, "--save_prepared_to", str(tmp_path / "data"))
    assert is_prepared(tmp_path / "data") and not (tmp_path / "prep" / "model.safetensors").exists()  # not trained
    saved = load_from_disk(str(tmp_path / "data"))
    assert saved["train"].features["input_ids"].feature.dtype == "uint16"
    assert saved["train"].column_names == ["input_ids"]  # the labels were the ids: dropped, the collator copies them
    assert saved["train"]["input_ids"] == [list(row) for row in direct.train_dataset["input_ids"]]

    again = _pretrain(tmp_path, tok_dir, "again", "--dataset_path", str(tmp_path / "data"))
    assert _losses(again) == pytest.approx(_losses(direct), rel=1e-6)
    bpb = [log["eval_bits_per_byte"] for log in again.state.log_history if "eval_bits_per_byte" in log]
    assert bpb and bpb[-1] == pytest.approx(next(log["eval_bits_per_byte"] for log in direct.state.log_history
                                                 if "eval_bits_per_byte" in log), rel=1e-6)


def test_max_train_tokens_caps_the_prepared_rows(tmp_path, tok_dir):
    _pretrain(tmp_path, tok_dir, "prep", "--dataset_path", _corpus(tmp_path / "corpus"), "--max_train_tokens", "40",
              "--save_prepared_to", str(tmp_path / "data"))
    meta = json.loads((tmp_path / "data" / PREPARED_FILE).read_text())
    assert meta["splits"]["train"] == {"rows": 2, "tokens": 64}  # ceil(40 / 32) rows of max_length 32
    assert meta["eval_tokens_per_byte"] > 0


def test_a_prepared_folder_of_another_max_length_is_refused_naming_the_fix(tmp_path, tok_dir):
    _pretrain(tmp_path, tok_dir, "prep", "--dataset_path", _corpus(tmp_path / "corpus"),
              "--save_prepared_to", str(tmp_path / "data"))
    with pytest.raises(ValueError, match="--max_length 32"):
        _pretrain(tmp_path, tok_dir, "again", "--dataset_path", str(tmp_path / "data"), "--max_length", "64")


def test_sft_from_a_prepared_folder_keeps_the_assistant_only_labels_and_the_losses(tmp_path, tok_dir):
    direct = _sft(tmp_path, tok_dir, "direct")
    _sft(tmp_path, tok_dir, "prep", "--save_prepared_to", str(tmp_path / "data"))
    saved = load_from_disk(str(tmp_path / "data"))["train"]
    assert saved.features["input_ids"].feature.dtype == "uint16" and saved.features["labels"].feature.dtype == "int16"
    assert saved["labels"] == [list(row) for row in direct.train_dataset["labels"]]
    assert any(-100 in row for row in saved["labels"])  # the prompt's tokens stay out of the loss
    again = _sft(tmp_path, tok_dir, "again", "--dataset_name", str(tmp_path / "data"))
    assert _losses(again) == pytest.approx(_losses(direct), rel=1e-6)


def test_compact_keeps_labels_only_where_they_mask():
    rows = Dataset.from_dict({"input_ids": [[5, 6, 7]], "labels": [[-100, 6, 7]], "seq_lengths": [[3]]})
    out = compact(rows, vocab_size=300)
    assert out.column_names == ["input_ids", "labels"] and out[0] == {"input_ids": [5, 6, 7], "labels": [-100, 6, 7]}
    plain = compact(Dataset.from_dict({"input_ids": [[5, 6]], "labels": [[5, 6]]}), vocab_size=70_000)
    assert plain.column_names == ["input_ids"] and plain.features["input_ids"].feature.dtype == "int32"
