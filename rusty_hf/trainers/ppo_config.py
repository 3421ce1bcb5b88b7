"""`PPOConfig`: TRL's `GRPOConfig` plus the fields PPO with a value head and GAE needs.

TRL 1.16 has no PPOTrainer; rusty_hf's `PPOTrainer` runs on GRPOTrainer's machinery, so every
GRPOConfig field (generation, reward functions and weights, logging, accelerate, vLLM, PEFT) keeps its
meaning. What PPO reads differently:

- `beta` is the KL coefficient, as in GRPO, but PPO folds it into the per-token *rewards*
  (r_t -= beta * (logp_t - ref_logp_t), as InstructGPT does) instead of adding a loss term. `beta > 0`
  makes TRL load the reference model (from the policy's `_name_or_path`, or the base weights under PEFT).
- `epsilon` / `epsilon_high` clip the policy ratio, as in GRPO.
- `entropy_coef` is the starting entropy-bonus coefficient; PPO decays it (`entropy_decay`, `entropy_floor`).
- `num_generations` defaults to 1: the value head is PPO's baseline, so no groups are needed. GRPO's
  advantage and loss options (`loss_type`, `scale_rewards`, `multi_objective_aggregation`, ...) are not used.
- `disable_dropout` defaults to True (old log-probs and values must be deterministic for the clipping).
- `ddp_find_unused_parameters` defaults to False (DDP would count the value head as unused; see the field).

How a rollout maps onto GRPOConfig's batching (the seed's "256 steps per rollout, 4 epochs, 4 minibatches"):

    rollout    = generation_batch_size completions = per_device_train_batch_size * processes * steps_per_generation
    minibatch  = per_device_train_batch_size * processes completions, one optimizer step each
                 (times gradient_accumulation_steps, when set, to split a minibatch in memory)
    minibatches per rollout = steps_per_generation          epochs per rollout = num_iterations

so 256 completions per rollout, 4 epochs, 4 minibatches of 64 on one GPU is
`per_device_train_batch_size=64, steps_per_generation=4, num_iterations=4` (recipes/r2/ppo.yaml); on N
processes use per_device_train_batch_size=64/N. Minibatches are drawn once per rollout (TRL shuffles the
rollout, then splits it); every epoch goes over the same minibatches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trl import GRPOConfig


@dataclass
class PPOConfig(GRPOConfig):
    """GRPOConfig plus PPO's value function, GAE and entropy schedule (see the module docstring)."""

    num_generations: int | None = field(
        default=1,
        metadata={
            "help": "Completions sampled per prompt. PPO's baseline is the value head, so 1 is enough; with 1, "
            "the rollout (generation_batch_size) must be even (GRPOConfig's group check is satisfied with 2)."
        },
    )
    disable_dropout: bool = field(
        default=True,
        metadata={
            "help": "Turn dropout off (GRPOConfig defaults to False): with it on, the rollout's old log-probs "
            "and values are noisy samples, and the ratio and value clipping compare against noise."
        },
    )
    ddp_find_unused_parameters: bool | None = field(
        default=False,
        metadata={
            "help": "DDP's search for parameters the forward did not use (transformers turns it on by default). "
            "Off for PPO: the value head's output reaches the loss beside the model's outputs, so the search "
            "would mark v_head unused, and its gradient then fails DDP with 'marked ready twice'."
        },
    )
    gamma: float = field(
        default=1.0, metadata={"help": "Discount per token in GAE (1.0: the score is not discounted)."}
    )
    lam: float = field(default=0.95, metadata={"help": "GAE lambda: 1.0 is Monte Carlo returns, 0.0 is one-step TD."})
    vf_coef: float = field(default=0.1, metadata={"help": "Weight of the value loss in the total loss."})
    cliprange_value: float | None = field(
        default=0.2,
        metadata={"help": "Clip the new values to old_value +/- this (PPO2 value clipping); None disables it."},
    )
    entropy_coef: float = field(
        default=0.0,
        metadata={"help": "Entropy-bonus coefficient at step 0 (loss -= coef * mean token entropy)."},
    )
    entropy_decay: float = field(
        default=1.0,
        metadata={
            "help": "Entropy coefficient at optimizer step s: max(entropy_floor, entropy_coef * entropy_decay**s)."
        },
    )
    entropy_floor: float = field(default=0.0, metadata={"help": "Lowest entropy coefficient the decay reaches."})
    whiten_advantages: bool = field(
        default=True,
        metadata={"help": "Normalise advantages to zero mean, unit variance over the rollout's tokens (per process)."},
    )
    whiten_rewards: bool = field(
        default=False, metadata={"help": "Scale the per-token rewards to unit variance over the rollout before GAE."}
    )
    value_head_lr: float | None = field(
        default=None,
        metadata={
            "help": "Learning rate of the value head; None uses learning_rate. A fresh head often wants 10x more."
        },
    )

    def __post_init__(self):
        self._check_ppo_fields()
        wants_one = self.num_generations == 1
        if wants_one:
            # GRPOConfig.__post_init__ rejects num_generations < 2 because GRPO's baseline is the group
            # mean. PPO's baseline is the value head, so present 2 to that check and restore 1 after.
            self.num_generations = 2
        try:
            super().__post_init__()
        except ValueError:
            if wants_one and self.generation_batch_size is not None and self.generation_batch_size % 2:
                raise ValueError(
                    f"PPOConfig with num_generations=1 needs an even rollout, got generation_batch_size="
                    f"{self.generation_batch_size}; change per_device_train_batch_size or steps_per_generation."
                ) from None
            raise
        finally:
            if wants_one:
                self.num_generations = 1

    def _check_ppo_fields(self) -> None:
        if self.num_generations is None or self.num_generations < 1:
            raise ValueError(f"num_generations must be >= 1, got {self.num_generations}")
        if not 0.0 <= self.gamma <= 1.0:
            raise ValueError(f"gamma must be in [0, 1], got {self.gamma}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")
        if self.vf_coef < 0:
            raise ValueError(f"vf_coef must be >= 0, got {self.vf_coef}")
        if self.cliprange_value is not None and self.cliprange_value <= 0:
            raise ValueError(f"cliprange_value must be > 0 (or None to disable clipping), got {self.cliprange_value}")
        if self.entropy_coef < 0 or self.entropy_floor < 0:
            raise ValueError(
                f"entropy_coef and entropy_floor must be >= 0, got {self.entropy_coef}, {self.entropy_floor}"
            )
        if self.entropy_floor > self.entropy_coef:
            raise ValueError(f"entropy_floor ({self.entropy_floor}) must not exceed entropy_coef ({self.entropy_coef})")
        if not 0.0 < self.entropy_decay <= 1.0:
            raise ValueError(f"entropy_decay must be in (0, 1], got {self.entropy_decay}")
        if self.value_head_lr is not None and self.value_head_lr <= 0:
            raise ValueError(f"value_head_lr must be > 0 (or None to use learning_rate), got {self.value_head_lr}")
        if self.use_adaptive_entropy:
            raise ValueError(
                "use_adaptive_entropy is GRPO's entropy controller; PPO schedules its bonus with entropy_coef, "
                "entropy_decay and entropy_floor. Set use_adaptive_entropy: false."
            )
        if self.importance_sampling_level != "token":
            raise ValueError("PPO's ratio is per token: set importance_sampling_level: token (GSPO is a GRPO option).")
        if self.top_entropy_quantile != 1.0:
            raise ValueError("top_entropy_quantile is a GRPO loss option PPO does not use; leave it at 1.0.")


__all__ = ["PPOConfig"]
