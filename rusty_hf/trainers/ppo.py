"""`PPOTrainer`: PPO with a value head and per-token GAE, built on TRL's GRPOTrainer.

TRL 1.16 has no PPOTrainer. GRPOTrainer already does everything around the update: sampling,
reward functions, the reference model (`beta > 0`), rollout reuse over several epochs
(`num_iterations`) and minibatches (`steps_per_generation`), logging, accelerate and PEFT. This
subclass replaces only what makes PPO PPO:

- the rollout's advantages: a sequence score (weighted sum of the reward functions) on the last
  completion token, minus `beta * (logp - ref_logp)` per token, then GAE over the value head's
  values (`_generate_and_score_completions`);
- the loss: clipped surrogate + `vf_coef` * clipped value loss - entropy bonus with decay and
  floor, per-token means over the completion mask (`_compute_loss`);
- value read-out: the value head runs on the same backbone pass as TRL's fused log-probs
  (`_get_per_token_logps_and_entropies`);
- two small ones: `_calculate_rewards` keeps the raw scores, `create_optimizer` gives the value head
  its own learning rate (`value_head_lr`).

    model = TinyRWKVForCausalLMWithValueHead.from_pretrained("outputs/tiny-sft")  # or add_value_head(lm)
    trainer = PPOTrainer(model=model, reward_funcs=get_reward_funcs(["execution"]),
                         args=PPOConfig(output_dir="outputs/tiny-ppo", ...),
                         train_dataset=dataset, processing_class=tokenizer)
    trainer.train()

The model is any causal LM with a `v_head` (and optional `v_dropout`) on top of `base_model`'s
hidden states; `save_model` writes the head with the weights. Reward functions are wrapped by
`reward_guard`, so a raising reward never stops training. Logs (TRL's `self._metrics`): ppo/policy_loss,
ppo/value_loss, ppo/entropy, ppo/entropy_coef, ppo/approx_kl, ppo/clipfrac, ppo/vf_clipfrac,
ppo/returns_mean, ppo/advantages_mean (before whitening), ppo/values_mean, ppo/kl_ref (with beta > 0).
Runs under DDP and FSDP2 (accelerate's fsdp.yaml): the value head runs inside the wrapped forward, where
FSDP has gathered its parameters; its output reaches the loss beside the model's outputs, so `PPOConfig`
turns off DDP's unused-parameter search. Not supported: multimodal inputs.
"""

from __future__ import annotations

from typing import Any, ClassVar

import torch
from torch import nn
from trl import GRPOTrainer
from trl.models.utils import disable_gradient_checkpointing

from rusty_hf.models.tiny_rwkv import TinyRWKVForCausalLMWithValueHead
from rusty_hf.trainers.gae import compute_gae, masked_mean, token_rewards, whiten
from rusty_hf.trainers.ppo_config import PPOConfig
from rusty_hf.trainers.ppo_value import add_value_head, read_values, value_head_model
from rusty_hf.trainers.reward_guard import guard_reward_funcs


def ppo_loss_terms(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
    cliprange_value: float | None,
) -> dict[str, torch.Tensor]:
    """PPO's clipped surrogate and clipped value loss, per-token means over `mask`, plus diagnostics.

    All inputs are (B, T). Returns policy_loss and value_loss (with grad), approx_kl, clipfrac and
    vf_clipfrac (without)."""
    log_ratio = logps - old_logps
    ratio = torch.exp(log_ratio)
    pg_unclipped = -advantages * ratio
    pg_clipped = -advantages * torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high)
    vf_unclipped = (values - returns) ** 2
    if cliprange_value is None:
        vf_clipped = vf_unclipped
    else:
        clipped_values = old_values + torch.clamp(values - old_values, -cliprange_value, cliprange_value)
        vf_clipped = (clipped_values - returns) ** 2
    with torch.no_grad():
        diagnostics = {
            "approx_kl": masked_mean((ratio - 1.0) - log_ratio, mask),  # k3 estimator, >= 0
            "clipfrac": masked_mean((pg_clipped > pg_unclipped).float(), mask),
            "vf_clipfrac": masked_mean((vf_clipped > vf_unclipped).float(), mask),
        }
    return {
        "policy_loss": masked_mean(torch.maximum(pg_unclipped, pg_clipped), mask),
        "value_loss": 0.5 * masked_mean(torch.maximum(vf_unclipped, vf_clipped), mask),
        **diagnostics,
    }


class PPOTrainer(GRPOTrainer):
    """PPO on GRPOTrainer's machinery; configure with `PPOConfig` (see the module docstring)."""

    _tag_names: ClassVar[list[str]] = ["trl", "ppo", "rusty_hf"]
    _name = "PPO"
    _paper: ClassVar[dict[str, str]] = {  # cited in the model card TRL writes with each checkpoint
        "title": "Proximal Policy Optimization Algorithms",
        "id": "1707.06347",
        "citation": "@article{schulman2017proximal,\n"
        "    title  = {{Proximal Policy Optimization Algorithms}},\n"
        "    author = {John Schulman and Filip Wolski and Prafulla Dhariwal and Alec Radford and Oleg Klimov},\n"
        "    year   = 2017,\n"
        "    eprint = {arXiv:1707.06347},\n"
        "}",
    }

    def __init__(self, model: str | nn.Module, reward_funcs: Any = None, args: PPOConfig | None = None, **kwargs: Any):
        if not isinstance(args, PPOConfig):
            raise TypeError(
                f"PPOTrainer needs args=PPOConfig(...) (value head, GAE, entropy schedule), got {type(args).__name__}"
            )
        if isinstance(model, str):
            model = TinyRWKVForCausalLMWithValueHead.from_pretrained(model, **(args.model_init_kwargs or {}))
        if value_head_model(model) is None:
            raise TypeError(
                f"PPOTrainer needs a model with a value head, got {type(model).__name__}. Fix: load the policy with "
                "TinyRWKVForCausalLMWithValueHead.from_pretrained(path) (it adds the head to a plain causal-LM checkpoint)."
            )
        peft_config = kwargs.get("peft_config")
        if peft_config is not None:
            # A LoRA run trains the value head in full: PEFT saves it with the adapter.
            peft_config.modules_to_save = sorted({*(peft_config.modules_to_save or []), "v_head"})
        self._captured_values: torch.Tensor | None = None
        self._last_rewards_per_func: torch.Tensor | None = None
        reward_funcs = guard_reward_funcs(reward_funcs) if reward_funcs is not None else None
        super().__init__(model=model, reward_funcs=reward_funcs, args=args, **kwargs)

    # --- value read-out ----------------------------------------------------------------------

    def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask, logits_to_keep, *args, **kwargs):
        # Overrides GRPOTrainer's: TRL's fused LM head runs `model.base_model` and projects its hidden
        # states; a forward hook on that backbone runs the value head on the same hidden states, so
        # values cost no second pass. The head runs inside the hook, i.e. inside the wrapped model's
        # forward, where FSDP has gathered the root unit's parameters (v_head is one of them); after the
        # forward they may be resharded. The first capture after `_captured_values` is reset wins (the rollout
        # scores old log-probs with the policy before anything else). Reference models have no value
        # head and pass straight through.
        policy = value_head_model(model)
        if policy is None or self._captured_values is not None:
            return super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
        chunks: list[torch.Tensor] = []
        handle = policy.base_model.register_forward_hook(
            lambda _m, _a, out: chunks.append(read_values(policy, out.last_hidden_state))
        )
        try:
            out = super()._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, *args, **kwargs
            )
        finally:
            handle.remove()
        # (B, C): the value of the state before each completion token
        self._captured_values = torch.cat(chunks)[:, :-1][:, -logits_to_keep:]
        return out

    def _logps_and_values(self, model, input_ids, attention_mask, logits_to_keep, **kwargs):
        self._captured_values = None
        try:
            logps, entropies, _ = self._get_per_token_logps_and_entropies(
                model, input_ids, attention_mask, logits_to_keep, **kwargs
            )
            return logps, entropies, self._captured_values
        finally:
            self._captured_values = None

    # --- rollout -----------------------------------------------------------------------------

    def _calculate_rewards(self, inputs, prompts, completions, completion_ids_list):
        # Overrides GRPOTrainer's only to keep the raw per-function rewards: GRPO turns them into
        # group-relative advantages, PPO needs the scores themselves.
        self._last_rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        return self._last_rewards_per_func

    def _generate_and_score_completions(self, inputs):
        # Overrides GRPOTrainer's: generation, reward scoring, reference log-probs and their logs stay
        # TRL's; the group-relative advantages it returns are replaced by per-token GAE.
        self._captured_values = None
        batch = super()._generate_and_score_completions(inputs)
        old_logps, old_values = batch.get("old_per_token_logps"), self._captured_values
        self._captured_values = None
        if old_logps is None or old_values is None:  # TRL skipped the old log-probs (one update per rollout)
            old_logps, old_values = self._rollout_logps_and_values(batch)
        scores, scorable = self._sequence_scores(len(inputs), old_values.device)
        mask = batch["completion_mask"] * scorable[:, None]  # an unscorable completion teaches nothing
        kl = old_logps - batch["ref_per_token_logps"] if "ref_per_token_logps" in batch else None
        rewards = token_rewards(scores, mask, kl, self.beta)
        if self.args.whiten_rewards:
            rewards = whiten(rewards, mask, shift_mean=False)
        advantages, returns = compute_gae(rewards, old_values, mask, self.args.gamma, self.args.lam)
        self._log_rollout(advantages, returns, old_values, mask, kl)
        if self.args.whiten_advantages:
            advantages = whiten(advantages, mask)
        self._replace_logged_advantages(advantages, mask)
        batch.update(
            advantages=advantages, returns=returns, old_values=old_values, old_per_token_logps=old_logps, ppo_mask=mask
        )
        return batch

    @torch.no_grad()
    def _rollout_logps_and_values(self, batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
        input_ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
        attention_mask = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
        mode = "train" if self.model.training else "eval"
        batch_size = self.args.per_device_train_batch_size if mode == "train" else self.args.per_device_eval_batch_size
        with disable_gradient_checkpointing(self.model, self.args.activation_checkpointing_kwargs):
            logps, _, values = self._logps_and_values(
                self.model, input_ids, attention_mask, batch["completion_ids"].size(1), batch_size=batch_size
            )
        return logps, values

    def _sequence_scores(self, local_count: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
        """This process's sequence scores (weighted sum over reward functions, None as 0) and which
        completions got at least one reward."""
        start = self.accelerator.process_index * local_count
        per_func = self._last_rewards_per_func[start : start + local_count].to(device)
        scores = (per_func * self.reward_weights.to(device)).nansum(dim=1)
        return scores, ~torch.isnan(per_func).all(dim=1)

    # --- loss --------------------------------------------------------------------------------

    def current_entropy_coef(self) -> float:
        """max(entropy_floor, entropy_coef * entropy_decay ** optimizer_step)."""
        args = self.args
        return max(args.entropy_floor, args.entropy_coef * args.entropy_decay**self.state.global_step)

    def _compute_loss(self, model, inputs):
        # Overrides GRPOTrainer's loss with PPO's: clipped surrogate on per-token GAE advantages,
        # clipped value loss, entropy bonus on a decaying schedule. Called by GRPOTrainer.compute_loss.
        input_ids = torch.cat([inputs["prompt_ids"], inputs["completion_ids"]], dim=1)
        attention_mask = torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1)
        mask = inputs["ppo_mask"] if "tool_mask" not in inputs else inputs["ppo_mask"] * inputs["tool_mask"]
        logps, entropies, values = self._logps_and_values(
            model, input_ids, attention_mask, inputs["completion_ids"].size(1), compute_entropy=True
        )
        terms = ppo_loss_terms(
            logps,
            inputs["old_per_token_logps"],
            inputs["advantages"],
            values,
            inputs["old_values"],
            inputs["returns"],
            mask,
            self.epsilon_low,
            self.epsilon_high,
            self.args.cliprange_value,
        )
        entropy = masked_mean(entropies, mask)
        entropy_coef = self.current_entropy_coef()
        loss = terms["policy_loss"] + self.args.vf_coef * terms["value_loss"] - entropy_coef * entropy
        mode = "train" if self.model.training else "eval"
        if mode == "train":  # TRL turns off the Trainer's own accumulation scaling (model_accepts_loss_kwargs)
            loss = loss / self.current_gradient_accumulation_steps
        for name, value in {**terms, "entropy": entropy}.items():
            self._metrics[mode][f"ppo/{name}"].append(self.accelerator.gather(value.detach()).mean().item())
        self._metrics[mode]["ppo/entropy_coef"].append(entropy_coef)
        return loss

    # --- logging / optimizer -----------------------------------------------------------------

    def _log_rollout(self, advantages, returns, values, mask, kl) -> None:
        mode = "train" if self.model.training else "eval"
        stats = {"advantages_mean": advantages, "returns_mean": returns, "values_mean": values}
        if kl is not None:
            stats["kl_ref"] = kl
        for name, x in stats.items():
            totals = self.accelerator.reduce(torch.stack([(x * mask).sum(), mask.sum().float()]), reduction="sum")
            self._metrics[mode][f"ppo/{name}"].append((totals[0] / totals[1].clamp(min=1.0)).item())

    def _replace_logged_advantages(self, advantages: torch.Tensor, mask: torch.Tensor) -> None:
        # GRPO logged its group-relative advantages for the completions table; show PPO's (per-sequence mean).
        per_sequence = self.accelerator.gather((advantages * mask).sum(1) / mask.sum(1).clamp(min=1)).tolist()
        logged = self._logs["advantages"]
        for _ in range(min(len(per_sequence), len(logged))):
            logged.pop()
        logged.extend(per_sequence)

    def create_optimizer(self, model=None):
        # Overrides Trainer.create_optimizer only to move the value head into its own parameter group
        # when `value_head_lr` is set (before the scheduler exists, so it scales that lr too).
        optimizer = super().create_optimizer(model)
        if self.args.value_head_lr is None:
            return optimizer
        head = value_head_model(self.model)
        head_ids = {id(p) for p in head.v_head.parameters()}
        for group in list(optimizer.param_groups):
            moved = [p for p in group["params"] if id(p) in head_ids]
            if moved and not group.get("value_head"):
                group["params"] = [p for p in group["params"] if id(p) not in head_ids]
                settings = {k: v for k, v in group.items() if k != "params"}
                optimizer.add_param_group(
                    {**settings, "params": moved, "lr": self.args.value_head_lr, "value_head": True}
                )
        optimizer.param_groups[:] = [g for g in optimizer.param_groups if g["params"]]
        return optimizer


__all__ = ["PPOConfig", "PPOTrainer", "add_value_head", "ppo_loss_terms"]
