"""Model cards and Hub pushes, against a real loopback server that speaks the Hub's upload API."""

from pathlib import Path

import huggingface_hub
import pytest
import torch
import yaml
from huggingface_hub import HfApi, ModelCard, snapshot_download
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import ModelConfig, SFTConfig, TrlParser

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.arguments import RustyScriptArguments
from rusty_hf.hub.publishing import finalize_output, push_folder, recipe_yaml, write_model_card
from tests.conftest import randomise_zero_init, tiny_config
from tests.hub_server import HubServer

TOKEN = "hf_loopbacktesttoken0123456789"
METRICS = {"python held-out tasks": {"pass@1": 0.25, "pass@2": 0.5}, "held-out task completions": {"protocol_validity": 0.75}}


@pytest.fixture
def checkpoint(tmp_path, tiny_tokenizer):
    """A saved tiny model + tokenizer folder, and the model."""
    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))).eval()
    folder = tmp_path / "ckpt"
    model.save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    return folder, model


@pytest.fixture
def hub(monkeypatch):
    """The loopback Hub; the client is allowed online (the suite runs with HF_HUB_OFFLINE=1) and told not
    to use Xet, which this server does not speak, so binary files take the LFS batch + PUT path."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    with HubServer(token=TOKEN) as server:
        yield server


def _parse(args):
    return TrlParser((RustyScriptArguments, SFTConfig, ModelConfig)).parse_args_and_config(args=args)


def test_model_card_carries_hub_metadata_and_the_loading_recipe(checkpoint):
    folder, _ = checkpoint
    write_model_card(folder, metrics=METRICS, recipe="max_steps: 100\nlearning_rate: 0.003\n", base_model="org/base")
    card = ModelCard.load(folder / "README.md")
    meta = card.data
    assert (meta.license, meta.library_name, meta.pipeline_tag) == ("agpl-3.0", "transformers", "text-generation")
    assert {"rusty", "rwkv", "trl"} <= set(meta.tags) and meta.base_model == "org/base"
    index = {(r.dataset_name, r.metric_type): r.metric_value for r in meta.eval_results}
    assert index[("python held-out tasks", "pass@2")] == 0.5 and index[("held-out task completions", "protocol_validity")] == 0.75
    for text in ("trust_remote_code=True", "AutoTokenizer.from_pretrained", '"action": "EDIT"', "learning_rate: 0.003",
                 "| python held-out tasks | pass@1 | 0.2500 |", "AGPL-3.0"):
        assert text in card.text, text


def test_new_metrics_keep_the_recorded_recipe_and_tags(checkpoint):
    folder, _ = checkpoint
    write_model_card(folder, recipe="max_steps: 7\n", tags=["rusty", "grpo"])
    card = write_model_card(folder, metrics={"rust held-out tasks": {"pass@1": 0.125}})
    assert "max_steps: 7" in card.text and "grpo" in card.data.tags
    assert [(r.dataset_name, r.metric_value) for r in card.data.eval_results] == [("rust held-out tasks", 0.125)]


def test_recipe_yaml_replays_the_run_and_never_holds_the_token(tmp_path):
    args = ["--config", "recipes/tiny/sft.yaml", "--max_steps", "3", "--hub_token", TOKEN, "--output_dir", str(tmp_path)]
    script_args, training_args, model_args = _parse(args)
    recipe = recipe_yaml(script_args, training_args, model_args)
    assert TOKEN not in recipe and "hub_token" not in recipe
    (tmp_path / "recipe.yaml").write_text(recipe)
    replay_script, replay_training, _ = _parse(["--config", str(tmp_path / "recipe.yaml")])
    assert replay_training.max_steps == 3 and replay_training.learning_rate == training_args.learning_rate
    assert replay_script.d_hidden == script_args.d_hidden and replay_training.use_cpu
    assert isinstance(yaml.safe_load(recipe), dict)


def test_recipe_yaml_leaves_a_running_accelerator_its_state(tmp_path):
    # Building the reference TrainingArguments resets accelerate's process-wide state; mid-run that took
    # the trainer's FSDP plugin away before the final save_model.
    from accelerate.state import AcceleratorState

    training_args = SFTConfig(output_dir=str(tmp_path), use_cpu=True, report_to="none", max_steps=3)
    AcceleratorState._shared_state["fsdp_plugin"] = plugin = object()
    try:
        assert "max_steps: 3" in recipe_yaml(None, training_args)
        assert AcceleratorState._shared_state.get("fsdp_plugin") is plugin
    finally:
        AcceleratorState._shared_state.pop("fsdp_plugin", None)


def test_a_pushed_folder_downloads_from_the_hub_and_reloads_with_equal_logits(tmp_path, checkpoint, hub, tiny_tokenizer):
    folder, model = checkpoint
    write_model_card(folder, metrics=METRICS)
    push_folder(folder, "rusty-tester/rusty-tiny", token=TOKEN, endpoint=hub.url)
    repo = hub.repos["rusty-tester/rusty-tiny"]
    assert "model.safetensors" in repo.lfs_paths  # went through the LFS batch API and the PUT upload
    assert "README.md" in repo.files and "modeling_tiny_rwkv.py" in repo.files and len(repo.commits) == 1

    local = snapshot_download("rusty-tester/rusty-tiny", endpoint=hub.url, cache_dir=tmp_path / "cache", token=TOKEN)
    for path in folder.iterdir():  # byte for byte, code included (test_remote_code loads such a folder without rusty_hf)
        assert (Path(local) / path.name).read_bytes() == path.read_bytes(), path.name
    reloaded = AutoModelForCausalLM.from_pretrained(local, trust_remote_code=True).eval()
    ids = torch.tensor([tiny_tokenizer.encode("def add(a, b):\n    return a + b")])
    with torch.no_grad():
        assert torch.equal(reloaded(ids).logits, model(ids).logits)
    tokenizer = AutoTokenizer.from_pretrained(local)
    assert tokenizer.encode("fn main() {}") == tiny_tokenizer.encode("fn main() {}")
    assert tokenizer.chat_template == tiny_tokenizer.chat_template
    assert ModelCard.load(f"{local}/README.md").data.eval_results[0].metric_value == 0.25


def test_a_push_without_the_token_is_refused_by_the_hub(checkpoint, hub):
    folder, _ = checkpoint
    with pytest.raises(huggingface_hub.errors.HfHubHTTPError, match="401"):
        push_folder(folder, "rusty-tester/nope", token="hf_wrong", endpoint=hub.url)
    assert "rusty-tester/nope" not in hub.repos


def _dialogs():
    from datasets import Dataset

    turn = [{"role": "user", "content": "ls"}, {"role": "assistant", "content": '{"action": "CMD", "command": "ls"}'}]
    return Dataset.from_list([{"messages": turn}] * 2)


def test_finalize_output_without_push_saves_a_loadable_folder_with_our_card(tmp_path, checkpoint, tiny_tokenizer):
    from rusty_hf.training.lean_sft import PaddingFreeSFTTrainer as SFTTrainer  # the tiny YAML's padding-free rows

    _, model = checkpoint
    out = tmp_path / "out"
    script_args, training_args, model_args = _parse(["--config", "recipes/tiny/sft.yaml", "--output_dir", str(out)])
    trainer = SFTTrainer(model=model, args=training_args, train_dataset=_dialogs(), processing_class=tiny_tokenizer)
    finalize_output(trainer, script_args, training_args, model_args=model_args)
    card = ModelCard.load(out / "README.md")
    assert "Rusty is a tiny" in card.text and "sft" in card.data.tags and not card.data.eval_results
    assert (out / "training_recipe.yaml").is_file() and (out / "tokenizer.json").is_file()
    assert AutoModelForCausalLM.from_pretrained(out, trust_remote_code=True).config.vocab_size == len(tiny_tokenizer)


def test_finalize_output_pushes_our_card_in_the_trainers_own_commit(tmp_path, checkpoint, hub, tiny_tokenizer, monkeypatch):
    from rusty_hf.training.lean_sft import PaddingFreeSFTTrainer as SFTTrainer  # the tiny YAML's padding-free rows

    # transformers' Trainer talks to the Hub through one shared HfApi (transformers.utils.hub.hf_api()).
    monkeypatch.setattr("transformers.utils.hub._hf_api", HfApi(endpoint=hub.url, library_name="transformers"))
    _, model = checkpoint
    script_args, training_args, model_args = _parse([
        "--config", "recipes/tiny/sft.yaml", "--output_dir", str(tmp_path / "out"), "--max_steps", "1",
        "--push_to_hub", "true", "--hub_model_id", "rusty-tester/rusty-sft", "--hub_token", TOKEN,
    ])
    trainer = SFTTrainer(model=model, args=training_args, train_dataset=_dialogs(), processing_class=tiny_tokenizer)
    finalize_output(trainer, script_args, training_args, METRICS, model_args=model_args)

    repo = hub.repos["rusty-tester/rusty-sft"]
    assert len(repo.commits) == 1 and {"model.safetensors", "tokenizer.json", "README.md"} <= set(repo.files)
    card = ModelCard(repo.files["README.md"].decode())
    assert "Rusty is a tiny" in card.text and "max_steps: 1" in card.text and TOKEN not in card.content
    assert {"rusty", "sft"} <= set(card.data.tags) and card.data.eval_results
    assert 'from_pretrained("rusty-tester/rusty-sft", trust_remote_code=True)' in card.text
