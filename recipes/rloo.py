"""RLOO (REINFORCE with a leave-one-out baseline) for Rusty with TRL's RLOOTrainer.

    python recipes/rloo.py --config recipes/tiny/rloo.yaml --model_name_or_path outputs/tiny-sft
    accelerate launch --config_file recipes/accelerate_configs/cpu.yaml recipes/rloo.py --config recipes/tiny/rloo.yaml

Same prompts and rewards as recipes/grpo.py (tasks from ``tasks/``, rewards by registry name); the
advantage of each completion is its reward minus the mean of the other ``num_generations - 1``.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys

from trl import ModelConfig, RLOOConfig, RLOOTrainer, TrlParser, get_peft_config

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.trainers import CurriculumRLOOTrainer, add_rl_callbacks
from rusty_hf.training import load_or_create_model
from rusty_hf.training.run import train_and_finish
from rusty_hf.training.rl_setup import build_reward_funcs, build_task_dataset, check_rl_arguments
from rusty_hf.errors import run_recipe


def main(script_args: RLScriptArguments, training_args: RLOOConfig, model_args: ModelConfig) -> RLOOTrainer:
    check_rl_arguments(script_args, training_args, multi_turn_ok=False, model_name_or_path=model_args.model_name_or_path)  # RLOOTrainer has no environment_factory
    tokenizer = load_tokenizer(script_args.tokenizer_name_or_path)
    reward_funcs, train_dataset = build_reward_funcs(script_args), build_task_dataset(script_args)
    model = load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code)
    trainer_cls = CurriculumRLOOTrainer if script_args.curriculum else RLOOTrainer
    trainer = trainer_cls(
        model=model,
        reward_funcs=reward_funcs,
        args=training_args,
        train_dataset=train_dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
    )
    add_rl_callbacks(trainer, script_args)  # early stopping, adaptive KL, curriculum, CSV log, plot
    train_and_finish(trainer, script_args, training_args, model_args)  # + model card, push_to_hub
    return trainer


if __name__ == "__main__":
    sys.exit(run_recipe("rloo.py", TrlParser((RLScriptArguments, RLOOConfig, ModelConfig)), main))
