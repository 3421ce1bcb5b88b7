"""PPOTrainer end to end on a tiny TinyRWKV with a value head (CPU, a few steps, shared by the tests).

One run serves most tests: constant reward 1 plus a reward that always raises, KL to a reference
(beta > 0), a decaying entropy bonus, the value head on its own learning rate.
"""

from types import SimpleNamespace

import pytest
import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, TrainerCallback

from rusty_hf import TinyRWKVForCausalLM, TinyRWKVForCausalLMWithValueHead
from rusty_hf.trainers import PPOConfig, PPOTrainer
from tests.conftest import tiny_config

pytestmark = pytest.mark.slow

STEPS = 6


def constant_reward(completions, **kwargs):
    return [1.0] * len(completions)


def raising_reward(completions, **kwargs):
    raise RuntimeError("reward server down")


def _snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


class FirstStepSnapshot(TrainerCallback):
    """Keeps the parameters as they are after the first optimizer step."""

    def __init__(self):
        self.params = None

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if state.global_step == 1:
            self.params = _snapshot(model)


def _ppo_args(output_dir, **overrides) -> PPOConfig:
    kwargs = {
        "output_dir": str(output_dir),
        "max_steps": STEPS,
        "per_device_train_batch_size": 4,
        "steps_per_generation": 1,
        "num_iterations": 3,
        "max_completion_length": 8,
        "learning_rate": 1e-3,
        "value_head_lr": 1e-2,
        "beta": 0.05,
        "entropy_coef": 0.01,
        "entropy_decay": 0.5,
        "entropy_floor": 0.002,
        "logging_steps": 1,
        "report_to": "none",
        "use_cpu": True,
        "bf16": False,
        "save_strategy": "no",
        "activation_checkpointing": False,
        "disable_dropout": True,
        "seed": 0,
    }
    kwargs.update(overrides)
    return PPOConfig(**kwargs)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, tiny_tokenizer):
    """A plain causal-LM checkpoint, as SFT leaves it (TRL rebuilds the reference model from it)."""
    torch.manual_seed(0)
    tok = tiny_tokenizer
    cfg = tiny_config(
        vocab_size=len(tok), eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id
    )
    folder = tmp_path_factory.mktemp("ppo") / "sft"
    TinyRWKVForCausalLM(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def prompts():
    return Dataset.from_list([{"prompt": [{"role": "user", "content": "list files"}]}] * 8)


@pytest.fixture(scope="module")
def run(checkpoint, prompts, tiny_tokenizer):
    model = TinyRWKVForCausalLMWithValueHead.from_pretrained(checkpoint)
    before, first_step = _snapshot(model), FirstStepSnapshot()
    trainer = PPOTrainer(
        model=model,
        reward_funcs=[constant_reward, raising_reward],
        args=_ppo_args(checkpoint.parent / "out"),
        train_dataset=prompts,
        processing_class=tiny_tokenizer,
        callbacks=[first_step],
    )
    trainer.train()
    logs = [log for log in trainer.state.log_history if "ppo/value_loss" in log]
    return SimpleNamespace(trainer=trainer, model=model, before=before, after_first=first_step.params, logs=logs)


def test_one_ppo_step_moves_policy_and_value_head_parameters(run):
    changed = {n for n, p in run.after_first.items() if not torch.equal(p, run.before[n])}
    assert {"v_head.weight", "v_head.bias", "lm_head.weight"} <= changed
    assert any(n.startswith("model.blocks.") for n in changed)


def test_values_come_from_the_state_before_each_completion_token(run):
    model = run.trainer.model.eval()
    ids = torch.tensor([[5, 6, 7, 8, 9, 10], [11, 12, 13, 14, 15, 16]])
    mask, completion = torch.ones_like(ids), 3
    with torch.no_grad(), run.trainer.accelerator.autocast():  # the trainer's precision
        _, _, values = run.trainer._logps_and_values(model, ids, mask, completion)
        out = model(ids)
    model.train()
    # Token t is valued from the hidden state at t - 1, the one that predicts it (TRL aligns the log-probs).
    torch.testing.assert_close(values, out.value[:, -completion - 1 : -1])


def test_value_loss_falls_on_a_fixed_reward(run):
    losses = [log["ppo/value_loss"] for log in run.logs]
    assert len(losses) == STEPS
    first_rollout, last_rollout = losses[:3], losses[-3:]  # num_iterations=3 updates per rollout
    assert sum(last_rollout) < 0.5 * sum(first_rollout), losses


def test_a_raising_reward_function_does_not_stop_training(run):
    assert run.trainer.state.global_step == STEPS
    failures = [
        log["rewards/raising_reward/failures"]
        for log in run.trainer.state.log_history
        if "rewards/raising_reward/failures" in log
    ]
    assert failures and all(count == 4 for count in failures)  # every completion of every rollout, counted
    assert all(log["reward"] == 1.0 for log in run.trainer.state.log_history if "reward" in log)


def test_ppo_metrics_are_logged_and_the_entropy_bonus_decays_to_its_floor(run):
    names = ["policy_loss", "value_loss", "entropy", "approx_kl", "clipfrac", "vf_clipfrac", "entropy_coef"]
    for log in run.logs:
        assert all(torch.isfinite(torch.tensor(log[f"ppo/{n}"])) for n in names)
    assert [log["ppo/entropy_coef"] for log in run.logs[:4]] == pytest.approx([0.01, 0.005, 0.0025, 0.002])
    rollout_logs = [log for log in run.trainer.state.log_history if "ppo/returns_mean" in log]
    assert rollout_logs and all("ppo/advantages_mean" in log and "ppo/kl_ref" in log for log in rollout_logs)


def test_saved_checkpoint_reloads_with_the_value_head(run, tmp_path):
    run.trainer.save_model(str(tmp_path))
    reloaded = TinyRWKVForCausalLMWithValueHead.from_pretrained(tmp_path)
    for name, param in run.model.named_parameters():
        torch.testing.assert_close(reloaded.get_parameter(name), param.detach(), msg=name)
    assert type(AutoModelForCausalLM.from_pretrained(tmp_path)) is TinyRWKVForCausalLM  # serves inference as-is


def test_a_model_without_a_value_head_is_rejected_with_the_fix(checkpoint, prompts, tiny_tokenizer, tmp_path):
    with pytest.raises(TypeError, match="TinyRWKVForCausalLMWithValueHead.from_pretrained"):
        PPOTrainer(
            model=TinyRWKVForCausalLM.from_pretrained(checkpoint),
            reward_funcs=constant_reward,
            args=_ppo_args(tmp_path),
            train_dataset=prompts,
            processing_class=tiny_tokenizer,
        )


def test_a_lora_run_trains_the_adapter_and_the_value_head_and_saves_both(checkpoint, prompts, tiny_tokenizer, tmp_path):
    from peft import LoraConfig, PeftModel

    model = TinyRWKVForCausalLMWithValueHead.from_pretrained(checkpoint)
    head_before = model.v_head.weight.detach().clone()
    trainer = PPOTrainer(
        model=model,
        reward_funcs=constant_reward,
        args=_ppo_args(tmp_path / "out", max_steps=1),
        train_dataset=prompts,
        processing_class=tiny_tokenizer,
        peft_config=LoraConfig(r=4, target_modules=["key", "value", "receptance", "output"], task_type="CAUSAL_LM"),
    )
    trainer.train()
    trained_head = trainer.model.get_base_model().v_head.modules_to_save["default"].weight
    assert not torch.equal(trained_head, head_before)
    trainer.save_model(str(tmp_path / "adapter"))
    base = TinyRWKVForCausalLMWithValueHead.from_pretrained(checkpoint)
    reloaded = PeftModel.from_pretrained(base, tmp_path / "adapter").get_base_model().v_head
    torch.testing.assert_close(reloaded.modules_to_save["default"].weight, trained_head.detach())
