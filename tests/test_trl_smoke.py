"""TinyRWKV trains under TRL's own trainers with near-default configs (CPU, a few steps)."""

import pytest
import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM
from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

from rusty_hf import TinyRWKVForCausalLM
from tests.conftest import tiny_config

pytestmark = pytest.mark.slow


@pytest.fixture
def checkpoint(tmp_path, tiny_tokenizer):
    """A saved tiny model + tokenizer: TRL rebuilds reference models from a path."""
    torch.manual_seed(0)
    cfg = tiny_config(
        vocab_size=len(tiny_tokenizer),
        eos_token_id=tiny_tokenizer.eos_token_id,
        pad_token_id=tiny_tokenizer.pad_token_id,
        bos_token_id=tiny_tokenizer.bos_token_id,
    )
    folder = tmp_path / "tiny"
    TinyRWKVForCausalLM(cfg).save_pretrained(folder)
    tiny_tokenizer.save_pretrained(folder)
    return folder


def _snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def _changed(model, before):
    return [n for n, p in model.named_parameters() if not torch.equal(p.detach(), before[n])]


def test_sft_trainer_steps_with_gradient_checkpointing_change_parameters(checkpoint, tiny_tokenizer, tmp_path):
    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    replies = ['{"action": "CMD", "command": "ls -la"}', '{"action": "MSG", "message": "Done."}']
    data = Dataset.from_list(
        [{"messages": [{"role": "user", "content": "list files"}, {"role": "assistant", "content": r}]} for r in replies * 6]
    )
    args = SFTConfig(
        output_dir=str(tmp_path / "sft"), max_steps=3, per_device_train_batch_size=4, learning_rate=1e-3,
        logging_steps=1, report_to="none", use_cpu=True, save_strategy="no", max_length=64,
    )
    assert args.gradient_checkpointing  # TRL's default, left on
    before = _snapshot(model)
    trainer = SFTTrainer(model=model, args=args, train_dataset=data, processing_class=tiny_tokenizer)
    trainer.train()
    losses = [log["loss"] for log in trainer.state.log_history if "loss" in log]
    assert len(losses) == 3 and all(torch.isfinite(torch.tensor(losses)))
    assert len(_changed(model, before)) == len(before)


def test_grpo_trainer_steps_with_kl_to_a_reference_change_parameters(checkpoint, tiny_tokenizer, tmp_path):
    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "list files"}]}] * 8)

    def length_reward(completions, **kwargs):
        return [len(c[0]["content"]) / 50.0 for c in completions]

    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"), max_steps=2, per_device_train_batch_size=4, num_generations=4,
        max_completion_length=12, learning_rate=1e-3, beta=0.04, logging_steps=1, report_to="none",
        use_cpu=True, save_strategy="no",
    )
    before = _snapshot(model)
    trainer = GRPOTrainer(
        model=model, reward_funcs=length_reward, args=args, train_dataset=data, processing_class=tiny_tokenizer
    )
    trainer.train()
    logs = [log for log in trainer.state.log_history if "reward" in log]
    assert len(logs) == 2 and all("kl" in log for log in logs)
    assert _changed(model, before)


def test_the_step_split_times_trls_own_methods_and_adds_up_to_the_step(checkpoint, tiny_tokenizer, tmp_path):
    import time

    from rusty_hf.trainers import StepSplitCallback

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "list files"}]}] * 8)

    def slow_reward(completions, **kwargs):  # a reward that takes a known time: its part is at least that
        time.sleep(0.05)
        return [0.0] * len(completions)

    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"), max_steps=2, per_device_train_batch_size=4, num_generations=4,
        max_completion_length=8, logging_steps=1, report_to="none", use_cpu=True, save_strategy="no",
    )
    trainer = GRPOTrainer(model=model, reward_funcs=slow_reward, args=args, train_dataset=data, processing_class=tiny_tokenizer)
    trainer.add_callback(StepSplitCallback(trainer))
    trainer.train()
    logs = [log for log in trainer.state.log_history if "time/step_s" in log]
    assert len(logs) == 2
    for log in logs:
        parts = [log[f"time/{p}_s"] for p in ("generation", "reward", "scoring", "update")]
        assert all(p >= 0 for p in parts) and log["time/generation_s"] > 0 and log["time/update_s"] > 0
        assert log["time/reward_s"] >= 0.05
        assert sum(parts) == pytest.approx(log["time/step_s"], rel=1e-6)  # the parts are the whole step
        assert log["rollouts"] == 4 and log["rollouts_per_s"] == pytest.approx(4 / log["time/step_s"], rel=1e-6)


def test_the_rollout_rate_is_completions_over_time_when_a_generation_serves_several_steps(checkpoint, tiny_tokenizer, tmp_path):
    from rusty_hf.trainers import StepSplitCallback

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": "list files"}]}] * 8)
    args = GRPOConfig(
        output_dir=str(tmp_path / "grpo"), max_steps=4, per_device_train_batch_size=4, num_generations=4,
        steps_per_generation=2, max_completion_length=8, logging_steps=4, report_to="none", use_cpu=True,
        save_strategy="no",
    )  # one generation of 8 completions serves two steps; one log over all four
    trainer = GRPOTrainer(model=model, reward_funcs=lambda completions, **k: [0.0] * len(completions), args=args,
                          train_dataset=data, processing_class=tiny_tokenizer)  # fmt: skip
    trainer.add_callback(StepSplitCallback(trainer))
    trainer.train()
    (log,) = [log for log in trainer.state.log_history if "time/step_s" in log]
    assert log["rollouts"] == pytest.approx(16 / 4)  # 16 completions over 4 steps, as TRL averages a log
    assert log["rollouts_per_s"] == pytest.approx(16 / (4 * log["time/step_s"]), rel=1e-6)


def test_the_step_split_refuses_a_trainer_without_the_timed_methods():
    from rusty_hf.trainers import StepSplitCallback

    with pytest.raises(TypeError, match="leave log_step_split off"):
        StepSplitCallback(object())
