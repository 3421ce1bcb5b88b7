"""Supervised fine-tuning of Rusty with TRL's SFTTrainer.

    python recipes/sft.py --config recipes/tiny/sft.yaml
    accelerate launch recipes/sft.py --config recipes/tiny/sft.yaml --max_steps 50   # CLI overrides YAML

Trains on the SFT mix of `rusty_hf.data.sft_data` (synthetic protocol dialogs plus the training-split
tasks answered with EDIT actions; held-out tasks never appear) unless `dataset_name` points at a
conversational dataset with a `messages` column. The loss is
on assistant turns only (`assistant_only_loss`). Saves a Hub-ready folder (weights, code for
trust_remote_code, tokenizer) to `output_dir`.

`--save_prepared_to DIR` tokenizes the mix as training would (TRL's chat template and assistant masks),
saves it compactly and exits; `--dataset_name DIR` then trains from it with no tokenizing
(`rusty_hf.training.prepared_data`; recipes/r2/pipeline.sh prepare / train), packed with TRL's
`pack_dataset` at training time when `packing` is on.

`packing: true` (TRL's best-fit decreasing, padding-free) puts whole dialogs end to end in each row;
TinyRWKV resets its state at each one (`position_ids`), and `share_prompt_state` runs the documents'
common system prompt once per row. benchmarks/packed_recipe.py measures it against padded rows.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys

from datasets import Dataset, load_dataset
from trl import ModelConfig, SFTConfig, SFTTrainer, TrlParser, get_peft_config
from trl.data_utils import pack_dataset

from rusty_hf.agent.tool_calling import enable_tool_calling
from rusty_hf.training.arguments import RustyScriptArguments
from rusty_hf.data.sft_data import build_sft_dataset
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.training import load_or_create_model
from rusty_hf.training.prepared_data import is_prepared, load_prepared, save_prepared, train_from_prepared
from rusty_hf.training.lean_sft import LeanSFTTrainer, PaddingFreeSFTTrainer
from rusty_hf.training.run import train_and_finish
from rusty_hf.training.shared_prefix import share_batch_prefix
from rusty_hf.errors import UserError, run_recipe


def build_dataset(script_args: RustyScriptArguments, training_args: SFTConfig, tokenizer) -> Dataset:
    if is_prepared(script_args.dataset_name):
        splits, _ = load_prepared(script_args.dataset_name, tokenizer, training_args.max_length)
        train_from_prepared(training_args)
        rows = splits[script_args.dataset_train_split]
        if training_args.packing:  # TRL skips its own packing for prepared rows: pack them as it would
            rows = pack_dataset(rows, training_args.max_length, strategy=training_args.packing_strategy)
        return rows
    if script_args.dataset_name:
        return load_dataset(script_args.dataset_name, script_args.dataset_config, split=script_args.dataset_train_split)
    return build_sft_dataset(
        script_args.num_dialogs,
        seed=script_args.dialog_seed,
        task_repeats=script_args.task_repeats,
        task_languages=script_args.task_languages,
        tasks_root=script_args.tasks_dir,
        num_terminal=script_args.num_terminal,
        terminal_multi_turn_share=script_args.terminal_multi_turn_share,
        terminal_closing_share=script_args.terminal_closing_share,
        terminal_session_share=script_args.terminal_session_share,
        terminal_session_write_share=script_args.terminal_session_write_share,
        terminal_session_refer_share=script_args.terminal_session_refer_share,
        terminal_session_missing_share=script_args.terminal_session_missing_share,
        terminal_closing_states_output=script_args.terminal_closing_states_output,
        terminal_cache_dir=script_args.terminal_cache_dir,
        terminal_pointers=script_args.terminal_pointers,
    )


def main(script_args: RustyScriptArguments, training_args: SFTConfig, model_args: ModelConfig) -> SFTTrainer:
    # The tool-aware template renders multi-turn dialogs (a command's output as a system turn) as the
    # terminal does; without tools it renders byte-identically to the base template.
    tokenizer = enable_tool_calling(load_tokenizer(script_args.tokenizer_name_or_path))
    if script_args.save_prepared_to:  # rows are saved whole; training packs them (`build_dataset`) when asked
        training_args.packing = False
    model = load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code)
    if script_args.terminal_pointers:  # its decoders mark the requests it reads as training did (`protocol.pointers`)
        model.config.copy_pointers = True
    if script_args.share_prompt_state and (training_args.assistant_only_loss or training_args.completion_only_loss):
        # The loss never covers the shared system prompt, so its state may be computed once per batch.
        share_batch_prefix(model, stop_token_ids=[tokenizer.convert_tokens_to_ids("<|assistant|>")])
    # lean: no host sync a step; both take padding_free rows with max_length per document (lean_sft.py)
    trainer_cls = LeanSFTTrainer if script_args.lean_step else PaddingFreeSFTTrainer
    trainer = trainer_cls(
        model=model,
        args=training_args,
        train_dataset=build_dataset(script_args, training_args, tokenizer),
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
    )
    if len(trainer.train_dataset) == 0:  # TRL drops rows whose assistant turns were all cut off by max_length
        raise UserError(f"SFT: no training example keeps an assistant token within max_length={training_args.max_length}. "
                        "Fix: raise --max_length (or set assistant_only_loss false)")
    if script_args.save_prepared_to:
        save_prepared({script_args.dataset_train_split: trainer.train_dataset}, script_args.save_prepared_to, tokenizer,
                      recipe="sft", max_length=training_args.max_length, num_proc=training_args.dataset_num_proc)
        return trainer
    train_and_finish(trainer, script_args, training_args, model_args, count_padding=True)  # + card, push_to_hub
    return trainer


if __name__ == "__main__":
    sys.exit(run_recipe("sft.py", TrlParser((RustyScriptArguments, SFTConfig, ModelConfig)), main))
