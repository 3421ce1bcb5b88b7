"""Supervised fine-tuning of Rusty with TRL's SFTTrainer.

    python recipes/sft.py --config recipes/tiny/sft.yaml
    accelerate launch recipes/sft.py --config recipes/tiny/sft.yaml --max_steps 50   # CLI overrides YAML

Trains on synthetic protocol dialogs (system persona, user request, one JSON action per assistant
turn) unless `dataset_name` points at a conversational dataset with a `messages` column. The loss is
on assistant turns only (`assistant_only_loss`). Saves a Hub-ready folder (weights, code for
trust_remote_code, tokenizer) to `output_dir`.
"""

from __future__ import annotations

from datasets import Dataset, load_dataset
from trl import ModelConfig, SFTConfig, SFTTrainer, TrlParser, get_peft_config

from rusty_hf.configs import RustyScriptArguments
from rusty_hf.data.dialogs import synthetic_dialogs
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.training import load_or_create_model


def build_dataset(script_args: RustyScriptArguments) -> Dataset:
    if script_args.dataset_name:
        return load_dataset(script_args.dataset_name, script_args.dataset_config, split=script_args.dataset_train_split)
    dialogs = synthetic_dialogs(script_args.num_dialogs, seed=script_args.dialog_seed)
    return Dataset.from_list([{"messages": messages} for messages in dialogs])


def main(script_args: RustyScriptArguments, training_args: SFTConfig, model_args: ModelConfig) -> None:
    tokenizer = load_tokenizer(script_args.tokenizer_name_or_path)
    model = load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code)
    trainer = SFTTrainer(
        model=model,
        args=training_args,
        train_dataset=build_dataset(script_args),
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
    )
    trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)
    trainer.save_model(training_args.output_dir)
    if trainer.accelerator.is_main_process:
        tokenizer.save_pretrained(training_args.output_dir)
        print(f"saved model and tokenizer to {training_args.output_dir}")


if __name__ == "__main__":
    parser = TrlParser((RustyScriptArguments, SFTConfig, ModelConfig))
    main(*parser.parse_args_and_config())
