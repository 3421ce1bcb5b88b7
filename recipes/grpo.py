"""GRPO (and GSPO) for Rusty with TRL's GRPOTrainer, on the coding tasks, rewards chosen by name.

    python recipes/grpo.py --config recipes/tiny/grpo.yaml --model_name_or_path outputs/tiny-sft
    accelerate launch --config_file recipes/accelerate_configs/cpu.yaml recipes/grpo.py --config recipes/tiny/grpo.yaml

GSPO is GRPO with ``importance_sampling_level: sequence``; TRL's ``loss_type`` (dapo, grpo, dr_grpo,
bnpo, ...) and ``beta`` (KL to a reference model) are plain config fields. ``environment: coding``
trains multi-turn through `rusty_hf.agent.env.CodingEnv` (TRL's ``environment_factory``).
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys

from trl import GRPOConfig, GRPOTrainer, ModelConfig, TrlParser, get_peft_config

from rusty_hf.training.arguments import RLScriptArguments
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.trainers import CurriculumGRPOTrainer, add_rl_callbacks
from rusty_hf.training import load_or_create_model
from rusty_hf.training.run import train_and_finish
from rusty_hf.training.rl_setup import build_reward_funcs, build_task_dataset, check_rl_arguments, served_rollouts
from rusty_hf.errors import run_recipe


def environment_factory(script_args: RLScriptArguments, tokenizer):
    """TRL's environment_factory for ``environment: coding``, and the tokenizer taught to render its tool calls."""
    if script_args.environment == "coding":
        from rusty_hf.agent.env import CodingEnv
        from rusty_hf.agent.tool_calling import enable_tool_calling

        return CodingEnv, enable_tool_calling(tokenizer)
    return None, tokenizer


def main(script_args: RLScriptArguments, training_args: GRPOConfig, model_args: ModelConfig) -> GRPOTrainer:
    check_rl_arguments(script_args, training_args, model_name_or_path=model_args.model_name_or_path)  # first: a wrong argument costs no loading
    tokenizer = load_tokenizer(script_args.tokenizer_name_or_path)
    reward_funcs, train_dataset = build_reward_funcs(script_args), build_task_dataset(script_args)
    model = load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code)
    environment, tokenizer = environment_factory(script_args, tokenizer)
    trainer_cls = CurriculumGRPOTrainer if script_args.curriculum else GRPOTrainer
    trainer = trainer_cls(
        model=model,
        reward_funcs=reward_funcs,
        args=training_args,
        train_dataset=train_dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
        environment_factory=environment,
        rollout_func=served_rollouts(script_args, training_args, train_dataset),  # terminal prompts decoded as served
    )
    add_rl_callbacks(trainer, script_args)  # early stopping, adaptive KL, curriculum, CSV log, plot
    train_and_finish(trainer, script_args, training_args, model_args)  # + model card, push_to_hub
    return trainer


if __name__ == "__main__":
    sys.exit(run_recipe("grpo.py", TrlParser((RLScriptArguments, GRPOConfig, ModelConfig)), main))
