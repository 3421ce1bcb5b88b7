"""What recipes adjust under FSDP (rusty_hf.training.sharding), on stand-in trainers: no processes launched.

The sharded runs themselves (FSDP2 on 2 CPU processes against one process and DDP) are in test_launch.py.
"""

import logging
from types import SimpleNamespace

import pytest
from transformers import Trainer, TrainingArguments
from transformers.training_args import OptimizerNames

from rusty_hf.training.sharding import (
    fit_optimizer_to_fsdp,
    fit_optimizer_to_installed,
    prepare_sharded_run,
    save_full_weights,
)


def fake_trainer(tmp_path, sharded: bool = True, optim: str = "adamw_bnb_8bit", **attrs) -> SimpleNamespace:
    """What the sharding helpers read on a Trainer."""
    args = TrainingArguments(output_dir=str(tmp_path), optim=optim, use_cpu=True, report_to="none")
    plugin = SimpleNamespace(state_dict_type="StateDictType.SHARDED_STATE_DICT")
    plugin.set_state_dict_type = lambda kind: setattr(plugin, "state_dict_type", f"StateDictType.{kind}")
    trainer = SimpleNamespace(
        args=args, model=None, optimizer=None, is_fsdp_enabled=sharded, is_world_process_zero=lambda: True,
        get_optimizer_cls_and_kwargs=Trainer.get_optimizer_cls_and_kwargs,
        accelerator=SimpleNamespace(state=SimpleNamespace(fsdp_plugin=plugin)),
    )
    trainer.__dict__.update(attrs)
    return trainer


def test_a_bitsandbytes_optimizer_becomes_fused_adamw_under_fsdp_with_one_line(tmp_path, caplog):
    trainer = fake_trainer(tmp_path)
    with caplog.at_level(logging.WARNING, logger="rusty_hf.training.sharding"):
        assert fit_optimizer_to_fsdp(trainer) == "adamw_torch_fused"
    assert trainer.args.optim == OptimizerNames.ADAMW_TORCH_FUSED
    assert len(caplog.records) == 1
    assert "adamw_bnb_8bit" in caplog.text and "optim: adamw_torch_fused" in caplog.text


@pytest.mark.parametrize(
    "setup", [dict(optim="adamw_torch"), dict(sharded=False), dict(optimizer=object())], ids=["torch", "ddp", "built"]
)
def test_other_optimizers_unsharded_runs_and_built_optimizers_are_left_alone(tmp_path, setup):
    trainer = fake_trainer(tmp_path, **setup)
    before = trainer.args.optim
    assert fit_optimizer_to_fsdp(trainer) is None
    assert trainer.args.optim == before


def test_without_bitsandbytes_its_optimizer_becomes_fused_adamw_with_one_line_naming_the_fix(tmp_path, caplog, monkeypatch):
    import transformers.trainer_optimizer

    trainer = fake_trainer(tmp_path, sharded=False)
    assert fit_optimizer_to_installed(trainer) is None  # installed here: left alone
    monkeypatch.setattr(transformers.trainer_optimizer, "is_bitsandbytes_available", lambda *a, **k: False)
    with pytest.raises(ImportError, match="bitsandbytes"):  # what an offline GPU image without it met
        Trainer.get_optimizer_cls_and_kwargs(trainer.args, None)
    with caplog.at_level(logging.WARNING, logger="rusty_hf.training.sharding"):
        prepare_sharded_run(trainer)
    assert trainer.args.optim == OptimizerNames.ADAMW_TORCH_FUSED and len(caplog.records) == 1
    assert "not installed" in caplog.text and "pip install bitsandbytes" in caplog.text
    assert fit_optimizer_to_installed(fake_trainer(tmp_path, optim="adamw_torch")) is None


def test_an_fsdp_launch_that_would_not_shard_is_refused_naming_the_cpu_config(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCELERATE_USE_FSDP", "true")
    with pytest.raises(ValueError, match="recipes/accelerate_configs/cpu.yaml"):
        prepare_sharded_run(fake_trainer(tmp_path, sharded=False))
    prepare_sharded_run(fake_trainer(tmp_path, sharded=True, optim="adamw_torch"))  # a sharded run passes


def test_the_final_save_of_a_sharded_model_gathers_the_full_state_dict(tmp_path):
    sharded, plain = fake_trainer(tmp_path), fake_trainer(tmp_path, sharded=False)
    save_full_weights(sharded)
    save_full_weights(plain)
    assert sharded.accelerator.state.fsdp_plugin.state_dict_type == "StateDictType.FULL_STATE_DICT"
    assert plain.accelerator.state.fsdp_plugin.state_dict_type == "StateDictType.SHARDED_STATE_DICT"
