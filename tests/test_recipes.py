"""The SFT recipe end to end on a tiny model, and the checks that run before any training step."""

import pytest
import torch
from trl import ModelConfig, SFTConfig, TrlParser

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.arguments import RustyScriptArguments
from rusty_hf.training import load_or_create_model
from tests.conftest import tiny_config

pytestmark = pytest.mark.slow


def _parse(args: list[str]):
    parser = TrlParser((RustyScriptArguments, SFTConfig, ModelConfig))
    return parser.parse_args_and_config(args=args + ["--use_cpu", "true", "--report_to", "none"])


def test_sft_recipe_trains_and_saves_a_folder_that_generates(tmp_path, tiny_tokenizer):
    from recipes.generate import reply
    from recipes.sft import main
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tiny_tokenizer.save_pretrained(tmp_path / "tok")
    out = tmp_path / "sft"
    trainer = main(*_parse([
        "--config", "recipes/tiny/sft.yaml", "--tokenizer_name_or_path", str(tmp_path / "tok"),
        "--output_dir", str(out), "--max_steps", "2", "--num_dialogs", "16", "--d_embed", "16",
        "--d_hidden", "32", "--per_device_train_batch_size", "4", "--logging_steps", "1",
        "--max_length", "2048", "--num_terminal", "8", "--terminal_cache_dir", str(tmp_path / "fixtures"),
    ]))
    for name in ("model.safetensors", "config.json", "modeling_tiny_rwkv.py", "tokenizer.json"):
        assert (out / name).is_file(), name
    logged = [entry for entry in trainer.state.log_history if "loss" in entry]
    assert logged and all(0 <= entry["pad_fraction"] < 1 and entry["real_tokens_per_step"] > 0 for entry in logged)
    model = AutoModelForCausalLM.from_pretrained(out, trust_remote_code=True)
    assert model.generation_config.eos_token_id == [5, 0]  # <|end|> then <|endoftext|>
    assert isinstance(reply(model, AutoTokenizer.from_pretrained(out), "list files", max_new_tokens=4), str)


def test_a_tokenizer_that_does_not_fit_the_checkpoint_fails_with_the_fix(tmp_path, tiny_tokenizer):
    TinyRWKVForCausalLM(tiny_config(vocab_size=99)).save_pretrained(tmp_path)
    script_args, _, model_args = _parse(["--model_name_or_path", str(tmp_path), "--output_dir", str(tmp_path / "o")])
    with pytest.raises(ValueError, match="vocab_size=99"):
        load_or_create_model(model_args, script_args, tiny_tokenizer)


def test_a_missing_checkpoint_fails_with_the_fix(tmp_path, tiny_tokenizer):
    script_args, _, model_args = _parse(["--model_name_or_path", str(tmp_path / "nope"), "--output_dir", str(tmp_path)])
    with pytest.raises(OSError, match="model_name_or_path"):  # a local path that is not there: no Hub lookup
        load_or_create_model(model_args, script_args, tiny_tokenizer)


def test_a_fresh_model_is_sized_by_the_tokenizer(tmp_path, tiny_tokenizer):
    script_args, _, model_args = _parse(["--d_hidden", "64", "--d_embed", "32", "--n_layers", "1", "--output_dir", str(tmp_path)])
    model = load_or_create_model(model_args, script_args, tiny_tokenizer)
    assert model.config.vocab_size == len(tiny_tokenizer) and model.config.d_hidden == 64
    assert model.config.pad_token_id == tiny_tokenizer.pad_token_id
    assert torch.isfinite(model(torch.tensor([[7, 8, 9]])).logits).all()


def test_script_arguments_reject_a_width_bitsandbytes_cannot_quantize():
    with pytest.raises(ValueError, match="multiple of 32"):
        RustyScriptArguments(d_hidden=100)
