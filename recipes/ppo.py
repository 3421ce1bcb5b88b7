"""PPO for Rusty: a value head, per-token GAE and a clipped objective (rusty_hf.trainers.PPOTrainer).

    python recipes/ppo.py --config recipes/tiny/ppo.yaml
    accelerate launch --config_file recipes/accelerate_configs/cpu.yaml recipes/ppo.py --config recipes/tiny/ppo.yaml
    accelerate launch --config_file recipes/accelerate_configs/ddp.yaml --num_processes $GPUS recipes/ppo.py --config recipes/r2/ppo.yaml
    accelerate launch --config_file recipes/accelerate_configs/fsdp.yaml --num_processes $GPUS recipes/ppo.py --config recipes/r2/ppo.yaml

Same prompts and rewards as recipes/grpo.py (tasks from ``tasks/``, rewards by registry name, each
guarded so a failure never stops the run). The policy starts from ``model_name_or_path`` (normally the
SFT checkpoint) with a fresh value head; ``beta > 0`` penalises KL to that checkpoint per token. LoRA:
``use_peft: true`` plus ``lora_target_modules``; the value head then trains in full and is saved with the
adapter. PPO's fields (gamma, lam, vf_coef, cliprange_value, entropy schedule, value_head_lr) and how a
rollout maps onto TRL's batching are documented in rusty_hf/trainers/ppo_config.py.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys

from trl import ModelConfig, TrlParser, get_peft_config

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.trainers import CurriculumMixin, add_rl_callbacks
from rusty_hf.trainers.ppo import PPOTrainer, add_value_head
from rusty_hf.trainers.ppo_config import PPOConfig
from rusty_hf.training import load_or_create_model
from rusty_hf.training.run import train_and_finish
from rusty_hf.training.rl_setup import build_reward_funcs, build_task_dataset, check_rl_arguments, served_rollouts
from rusty_hf.errors import run_recipe


class CurriculumPPOTrainer(CurriculumMixin, PPOTrainer):
    """PPO whose prompts follow the difficulty curriculum (CurriculumMixin overrides only the sampler)."""


def main(script_args: RLScriptArguments, training_args: PPOConfig, model_args: ModelConfig) -> PPOTrainer:
    check_rl_arguments(script_args, training_args, multi_turn_ok=False, model_name_or_path=model_args.model_name_or_path)  # PPO trains single-turn completions
    tokenizer = load_tokenizer(script_args.tokenizer_name_or_path)
    reward_funcs, train_dataset = build_reward_funcs(script_args), build_task_dataset(script_args)
    model = add_value_head(load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code))
    trainer_cls = CurriculumPPOTrainer if script_args.curriculum else PPOTrainer
    trainer = trainer_cls(
        model=model,
        reward_funcs=reward_funcs,
        args=training_args,
        train_dataset=train_dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
        rollout_func=served_rollouts(script_args, training_args, train_dataset),  # terminal prompts decoded as served
    )
    add_rl_callbacks(trainer, script_args)  # early stopping, adaptive KL, curriculum, CSV log, plot
    train_and_finish(trainer, script_args, training_args, model_args)  # value head saved with the weights
    return trainer


if __name__ == "__main__":
    sys.exit(run_recipe("ppo.py", TrlParser((RLScriptArguments, PPOConfig, ModelConfig)), main))
