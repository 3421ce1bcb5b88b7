"""The pretraining recipe end to end on a tiny model and corpus, bits per byte, and SFT from its folder."""

import math

import pytest
from datasets import Dataset, DatasetDict
from trl import ModelConfig, SFTConfig, TrlParser

from rusty_hf.training.arguments import PretrainScriptArguments, RustyScriptArguments
from rusty_hf.training.pretraining import bits_per_byte, count_text_bytes, count_tokens

pytestmark = pytest.mark.slow

SNIPPETS = [
    "def add_{i}(a, b):\n    return a + b + {i}\n",
    'fn main() {{\n    println!("hello {i}");\n}}\n',
    "import os\nfor name in os.listdir('.'):\n    print(name, {i})\n",
]


def _corpus(path) -> str:
    texts = [snippet.format(i=i) for i in range(12) for snippet in SNIPPETS]  # 36 documents
    DatasetDict({
        "train": Dataset.from_dict({"text": texts[:30], "language": ["python"] * 30}),
        "validation": Dataset.from_dict({"text": texts[30:], "language": ["python"] * 6}),
    }).save_to_disk(str(path))
    return str(path)


def _parse(args: list[str], parsers=(PretrainScriptArguments, SFTConfig, ModelConfig)):
    return TrlParser(parsers).parse_args_and_config(args=args + ["--use_cpu", "true", "--report_to", "none"])


def _pretrain_args(tmp_path, tokenizer_dir: str, **overrides: str) -> list[str]:
    args = {
        "config": "recipes/tiny/pretrain.yaml", "dataset_path": _corpus(tmp_path / "corpus"),
        "tokenizer_name_or_path": tokenizer_dir, "output_dir": str(tmp_path / "pretrain"), "max_steps": "3",
        "eval_steps": "3", "d_embed": "16", "d_hidden": "32", "max_length": "64",
        "per_device_train_batch_size": "4", "per_device_eval_batch_size": "4", "logging_steps": "1",
    }
    args.update(overrides)
    return [item for key, value in args.items() for item in (f"--{key}", value)]


def test_bits_per_byte_by_hand():
    # 2 bits per token (loss 2 ln 2 nats), 3 tokens spelling 12 bytes: 6 bits / 12 bytes = 0.5
    assert bits_per_byte(2 * math.log(2), tokens_per_byte=3 / 12) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="tokens_per_byte"):
        bits_per_byte(1.0, 0.0)


def test_counts_read_arrow_batches_and_honour_a_shuffle():
    texts = Dataset.from_dict({"text": ["ab", "é", ""]})  # é is 2 UTF-8 bytes
    assert count_text_bytes(texts.shuffle(seed=0)) == 4
    assert count_text_bytes(texts.select([1])) == 2  # the selected row, not the whole underlying table
    assert count_tokens(Dataset.from_dict({"input_ids": [[1, 2, 3], [4]]})) == 4


def test_pretrain_logs_held_out_bits_per_byte_saves_a_folder_and_sft_starts_from_it(tmp_path, tiny_tokenizer):
    from recipes.pretrain import main as pretrain
    from recipes.sft import main as sft
    from transformers import AutoModelForCausalLM

    tiny_tokenizer.save_pretrained(tmp_path / "tok")
    out = tmp_path / "pretrain"
    trainer = pretrain(*_parse(_pretrain_args(tmp_path, str(tmp_path / "tok"))))
    assert trainer.args.packing_strategy == "wrapped" and trainer.state.global_step == 3
    evals = [log for log in trainer.state.log_history if "eval_loss" in log]
    assert evals, trainer.state.log_history
    loss, bpb = evals[-1]["eval_loss"], evals[-1]["eval_bits_per_byte"]
    assert math.isfinite(bpb) and bpb > 0 and math.isfinite(loss) and loss > 0
    assert bpb == pytest.approx(loss * trainer.eval_tokens_per_byte / math.log(2))
    # every validation document's tokens plus its EOS, over its bytes (the tiny tokenizer: ~1 token per 3 bytes)
    texts = _validation_texts(tmp_path)
    expected = sum(len(tiny_tokenizer(t)["input_ids"]) + 1 for t in texts) / sum(len(t.encode()) for t in texts)
    assert trainer.eval_tokens_per_byte == pytest.approx(expected)
    for name in ("model.safetensors", "config.json", "modeling_tiny_rwkv.py", "tokenizer.json", "README.md"):
        assert (out / name).is_file(), name
    assert AutoModelForCausalLM.from_pretrained(out, trust_remote_code=True).config.d_hidden == 32

    sft_out = tmp_path / "sft"
    sft_trainer = sft(*_parse([
        "--config", "recipes/tiny/sft.yaml", "--model_name_or_path", str(out), "--tokenizer_name_or_path", str(out),
        "--output_dir", str(sft_out), "--max_steps", "1", "--num_dialogs", "8", "--num_terminal", "0", "--task_repeats", "0",
        "--per_device_train_batch_size", "2", "--max_length", "2048",
    ], parsers=(RustyScriptArguments, SFTConfig, ModelConfig)))
    assert sft_trainer.state.global_step == 1 and (sft_out / "model.safetensors").is_file()
    assert sft_trainer.model.config.d_hidden == 32  # the pretrained weights, not a fresh model


def _validation_texts(tmp_path) -> list[str]:
    from datasets import load_from_disk

    return load_from_disk(str(tmp_path / "corpus"))["validation"]["text"]


def test_a_missing_corpus_fails_naming_the_command_that_builds_it(tmp_path, tiny_tokenizer):
    from recipes.pretrain import main

    tiny_tokenizer.save_pretrained(tmp_path / "tok")
    args = _pretrain_args(tmp_path, str(tmp_path / "tok"), dataset_path=str(tmp_path / "nope"))
    with pytest.raises(FileNotFoundError, match="recipes/build_code_corpus.py --output_dir data/code_corpus"):
        main(*_parse(args))


def test_pretraining_resumes_from_the_last_checkpoint(tmp_path, tiny_tokenizer):
    from recipes.pretrain import main

    tiny_tokenizer.save_pretrained(tmp_path / "tok")
    main(*_parse(_pretrain_args(tmp_path, str(tmp_path / "tok"), max_steps="2", save_steps="2", eval_strategy="no")))
    assert (tmp_path / "pretrain" / "checkpoint-2").is_dir()
    trainer = main(*_parse(_pretrain_args(tmp_path, str(tmp_path / "tok"), max_steps="3", eval_strategy="no",
                                          resume_from_checkpoint="last")))
    assert trainer.state.global_step == 3
    assert [log["step"] for log in trainer.state.log_history if "loss" in log] == [1, 2, 3]  # restored, not redone
