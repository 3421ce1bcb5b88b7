"""TinyRWKV under each of TRL's trainers, two steps each on CPU, with the contracts checked inside them.

Every trainer must run with near-default settings, give a finite loss and move the weights. The online
trainers (GRPO, RLOO, our PPO) must sample from the policy they train: a probe wraps `generate` and scores
each rollout with a model freshly built from the weights of that moment; the generation's own logits must
match. Before that contract held, fused AdamW (the Trainer's default optimizer) left the decoder on the first
weights it saw. The preference trainers must start from a zero margin (the policy is its own reference at
step 1), which needs the no-grad and grad forwards to agree.
"""

from __future__ import annotations

import pytest
import torch
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification

from rusty_hf import TinyRWKVForCausalLM, TinyRWKVForCausalLMWithValueHead
from tests.conftest import tiny_config

pytestmark = pytest.mark.slow

COMMON = dict(max_steps=2, per_device_train_batch_size=4, learning_rate=5e-3, logging_steps=1, report_to="none",
              use_cpu=True, bf16=False, save_strategy="no", seed=0, disable_dropout=True)  # fmt: skip
REPLIES = ['{"action": "CMD", "command": "ls -la"}', '{"action": "MSG", "message": "Done."}',
           '{"action": "CMD", "command": "cat notes.txt"}', '{"action": "MSG", "message": "Tests pass."}']


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory, tiny_tokenizer):
    """A saved tiny model and tokenizer: TRL rebuilds reference and teacher models from the folder."""
    torch.manual_seed(0)
    tok = tiny_tokenizer
    config = tiny_config(vocab_size=len(tok), eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                         bos_token_id=tok.bos_token_id)  # fmt: skip
    folder = tmp_path_factory.mktemp("matrix") / "tiny"
    model = TinyRWKVForCausalLM(config)
    with torch.no_grad():  # RWKV-4 zero-initialises several projections: give every path a signal
        for param in model.parameters():
            if param.dim() == 2 and not param.any():
                param.normal_(std=0.05)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


def _config(cls, tmp_path, **overrides):
    """`cls(...)` with the shared settings it has fields for (not every config has `disable_dropout`)."""
    kwargs = {**COMMON, **overrides}
    return cls(output_dir=str(tmp_path), **{k: v for k, v in kwargs.items() if k in cls.__dataclass_fields__})


def _snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def _assert_trained(trainer, before, key="loss"):
    losses = [log[key] for log in trainer.state.log_history if key in log]
    assert len(losses) >= 2 and all(torch.isfinite(torch.tensor(losses))), trainer.state.log_history
    model = trainer.accelerator.unwrap_model(trainer.model)
    assert any(not torch.equal(p.detach(), before[n]) for n, p in model.named_parameters() if n in before)
    return losses


def _conversations(n: int = 8):
    return [{"messages": [{"role": "user", "content": "list files"}, {"role": "assistant", "content": r}]}
            for r in (REPLIES * n)[:n]]  # fmt: skip


def _preferences(n: int = 8):
    return [{"prompt": "list files", "chosen": REPLIES[i % 2], "rejected": REPLIES[2 + i % 2]} for i in range(n)]


# --- supervised and preference trainers ---------------------------------------------------------------


@pytest.mark.parametrize("packing", ["none", "bfd", "padding_free"])
def test_sft_trains_plain_and_packed(checkpoint, tiny_tokenizer, tmp_path, packing):
    from trl import SFTConfig, SFTTrainer

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    flags = {"none": {}, "bfd": dict(packing=True), "padding_free": dict(padding_free=True, max_length=None)}[packing]
    args = _config(SFTConfig, tmp_path, **{"max_length": 128, "activation_checkpointing": False, **flags})
    before = _snapshot(model)
    trainer = SFTTrainer(model=model, args=args, train_dataset=Dataset.from_list(_conversations(16)),
                         processing_class=tiny_tokenizer)  # fmt: skip
    batch = next(iter(trainer.get_train_dataloader()))
    if packing != "none":  # documents end to end in one row, marked by restarting position_ids
        assert batch["input_ids"].shape[0] == 1 and int((batch["position_ids"] == 0).sum()) > 1
    trainer.train()
    _assert_trained(trainer, before)


@pytest.mark.parametrize("packing", ["none", "bfd"])
def test_the_lean_sft_step_gives_trls_losses_weights_and_logged_numbers(checkpoint, tiny_tokenizer, tmp_path, packing):
    """LeanSFTTrainer (recipes/sft.py's) keeps its metrics on the device until a log: what it logs and trains
    must be what TRL's SFTTrainer logs and trains, step by step, with gradient accumulation."""
    from trl import SFTConfig, SFTTrainer

    from rusty_hf.training.lean_sft import LeanSFTTrainer

    runs = {}
    for cls in (SFTTrainer, LeanSFTTrainer):
        model = AutoModelForCausalLM.from_pretrained(checkpoint)
        args = _config(SFTConfig, tmp_path / cls.__name__, max_length=128, activation_checkpointing=False, max_steps=3,
                       gradient_accumulation_steps=2, packing=packing == "bfd")  # fmt: skip
        trainer = cls(model=model, args=args, train_dataset=Dataset.from_list(_conversations(32)),
                      processing_class=tiny_tokenizer)  # fmt: skip
        trainer.train()
        runs[cls] = (trainer.state.log_history, _snapshot(model))
    assert trainer.lean_micro_batches == 6  # every micro-batch of the lean run took its own path
    (trl_logs, trl_weights), (lean_logs, lean_weights) = runs[SFTTrainer], runs[LeanSFTTrainer]
    keys = ("loss", "grad_norm", "entropy", "mean_token_accuracy", "num_tokens")
    trl_steps = [{k: log[k] for k in keys} for log in trl_logs if "loss" in log]
    lean_steps = [{k: log[k] for k in keys} for log in lean_logs if "loss" in log]
    assert len(trl_steps) == 3 and len(lean_steps) == 3
    for want, got in zip(trl_steps, lean_steps):
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6)
    for name, weight in trl_weights.items():
        torch.testing.assert_close(lean_weights[name], weight, rtol=1e-5, atol=1e-6, msg=name)


@pytest.mark.parametrize(("loss_type", "bf16"), [("sigmoid", False), ("ipo", False), ("sigmoid", True)])
def test_dpo_starts_from_a_zero_margin_and_trains(checkpoint, tiny_tokenizer, tmp_path, loss_type, bf16):
    from trl import DPOConfig, DPOTrainer

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    # bf16: the policy's forward runs under autocast with grad, the reference's under autocast without
    args = _config(DPOConfig, tmp_path, max_length=64, loss_type=[loss_type], bf16=bf16)
    before = _snapshot(model)
    trainer = DPOTrainer(model=model, args=args, train_dataset=Dataset.from_list(_preferences()),
                         processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)
    first = next(log for log in trainer.state.log_history if "rewards/margins" in log)
    assert abs(first["rewards/margins"]) < 1e-5, first  # the policy is its own reference before any step


def test_kto_trains(checkpoint, tiny_tokenizer, tmp_path):
    from trl import KTOConfig, KTOTrainer

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    data = [{"prompt": "list files", "completion": r, "label": i % 2 == 0} for i, r in enumerate(REPLIES * 2)]
    args = _config(KTOConfig, tmp_path, max_length=64)
    before = _snapshot(model)
    trainer = KTOTrainer(model=model, args=args, train_dataset=Dataset.from_list(data), processing_class=tiny_tokenizer)
    trainer.train()
    _assert_trained(trainer, before)


@pytest.mark.parametrize("method", ["orpo", "cpo"])
def test_orpo_and_cpo_train(checkpoint, tiny_tokenizer, tmp_path, method, monkeypatch):
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    if method == "orpo":
        from trl.experimental.orpo import ORPOConfig as Config
        from trl.experimental.orpo import ORPOTrainer as Trainer
    else:
        from trl.experimental.cpo import CPOConfig as Config
        from trl.experimental.cpo import CPOTrainer as Trainer
    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    args = _config(Config, tmp_path, max_length=64)
    before = _snapshot(model)
    trainer = Trainer(model=model, args=args, train_dataset=Dataset.from_list(_preferences()),
                      processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)


def test_reward_trainer_trains_a_tinyrwkv_reward_model(checkpoint, tiny_tokenizer, tmp_path):
    from trl import RewardConfig, RewardTrainer

    model = AutoModelForSequenceClassification.from_pretrained(checkpoint, num_labels=1)
    assert type(model).__name__ == "TinyRWKVForSequenceClassification"
    data = [{"chosen": [{"role": "user", "content": "list files"}, {"role": "assistant", "content": REPLIES[i % 2]}],
             "rejected": [{"role": "user", "content": "list files"}, {"role": "assistant", "content": REPLIES[2]}]}
            for i in range(8)]  # fmt: skip
    args = _config(RewardConfig, tmp_path, max_length=256)
    before = _snapshot(model)
    trainer = RewardTrainer(model=model, args=args, train_dataset=Dataset.from_list(data),
                            processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)
    assert not torch.equal(model.score.weight.detach(), before["score.weight"])


def test_distillation_from_a_teacher_trains(checkpoint, tiny_tokenizer, tmp_path):
    from trl import DistillationConfig, DistillationTrainer

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    teacher = AutoModelForCausalLM.from_pretrained(checkpoint)
    with torch.no_grad():
        teacher.lm_head.weight.mul_(2.0)  # a teacher that differs from the student
    args = _config(DistillationConfig, tmp_path, max_length=64, max_completion_length=8)
    before = _snapshot(model)
    trainer = DistillationTrainer(model=model, teacher_model=teacher, args=args, train_dataset=_prompts(),
                                  processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)


# --- online trainers: they must sample from the weights they train ----------------------------------------


class SamplingProbe:
    """Replaces `model.generate`: each rollout's logits are compared with a model freshly built from the
    weights of that moment, scoring the same sequences in one teacher-forced forward."""

    def __init__(self, model: torch.nn.Module, bf16: bool = False):
        self.model, self.generate, self.bf16 = model, model.generate, bf16
        self.tolerance = 5e-2 if bf16 else 1e-4  # bf16 products of other shapes round differently
        self.differences: list[float] = []
        self.heads: list[torch.Tensor] = []
        model.generate = self

    def __call__(self, *args, **kwargs):
        out = self.generate(*args, **{**kwargs, "return_dict_in_generate": True, "output_logits": True})
        prompt, mask = kwargs["input_ids"], kwargs.get("attention_mask")
        fresh = TinyRWKVForCausalLM(self.model.config).eval()
        fresh.load_state_dict(self.model.state_dict(), strict=False)  # a value head's extra weights are left out
        full_mask = None
        if mask is not None:
            full_mask = torch.cat([mask, mask.new_ones(mask.shape[0], out.sequences.shape[1] - mask.shape[1])], 1)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.bf16):  # as accelerate runs it
            logits = fresh(out.sequences, attention_mask=full_mask).logits[:, prompt.shape[1] - 1 : -1]
        self.differences.append(float((torch.stack(out.logits, 1) - logits).abs().max()))
        self.heads.append(self.model.lm_head.weight.detach().clone())
        return out.sequences


def _text_reward(completions, **kwargs):
    """Differs between completions of one prompt (so advantages are not all zero and the policy moves)."""
    return [sum(map(ord, c[0]["content"])) % 7 / 7.0 for c in completions]


def _prompts(n: int = 8):
    return Dataset.from_list([{"prompt": [{"role": "user", "content": "list files"}]}] * n)


def _assert_on_policy(probe: SamplingProbe) -> None:
    assert len(probe.heads) >= 2
    assert not torch.equal(probe.heads[0], probe.heads[-1]), "no optimizer step between rollouts"
    assert max(probe.differences) < probe.tolerance, probe.differences


@pytest.mark.parametrize(("loss_type", "iterations", "bf16"), [("dapo", 1, False), ("grpo", 2, False), ("dapo", 1, True)])
def test_grpo_samples_from_the_policy_it_trains(checkpoint, tiny_tokenizer, tmp_path, loss_type, iterations, bf16):
    from trl import GRPOConfig, GRPOTrainer

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    probe = SamplingProbe(model, bf16=bf16)
    args = _config(GRPOConfig, tmp_path, num_generations=4, max_completion_length=8, beta=0.04, loss_type=loss_type,
                   num_iterations=iterations, max_steps=4, bf16=bf16)  # fmt: skip
    assert args.optim == "adamw_torch_fused"  # the Trainer's default: the optimizer the old cache missed
    before = _snapshot(model)
    trainer = GRPOTrainer(model=model, reward_funcs=_text_reward, args=args, train_dataset=_prompts(),
                          processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)
    _assert_on_policy(probe)
    first = next(log for log in trainer.state.log_history if "kl" in log)
    assert abs(first["kl"]) < 1e-6, first  # the reference is the policy before its first step


def test_rloo_samples_from_the_policy_it_trains(checkpoint, tiny_tokenizer, tmp_path):
    from trl import RLOOConfig, RLOOTrainer

    model = AutoModelForCausalLM.from_pretrained(checkpoint)
    probe = SamplingProbe(model)
    args = _config(RLOOConfig, tmp_path, num_generations=4, max_completion_length=8, max_steps=3)
    before = _snapshot(model)
    trainer = RLOOTrainer(model=model, reward_funcs=_text_reward, args=args, train_dataset=_prompts(),
                          processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)
    _assert_on_policy(probe)


def test_ppo_samples_from_the_policy_it_trains(checkpoint, tiny_tokenizer, tmp_path):
    from rusty_hf.trainers import PPOConfig, PPOTrainer

    model = TinyRWKVForCausalLMWithValueHead.from_pretrained(checkpoint)
    probe = SamplingProbe(model)
    args = _config(PPOConfig, tmp_path, steps_per_generation=1, num_iterations=2, max_completion_length=8, beta=0.05,
                   activation_checkpointing=False, max_steps=4)  # fmt: skip
    before = _snapshot(model)
    trainer = PPOTrainer(model=model, reward_funcs=_text_reward, args=args, train_dataset=_prompts(),
                         processing_class=tiny_tokenizer)  # fmt: skip
    trainer.train()
    _assert_trained(trainer, before)
    _assert_on_policy(probe)
