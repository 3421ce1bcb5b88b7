"""Causal-LM pretraining of Rusty on raw code text, with sequence packing (TRL's SFTTrainer).

    python3 recipes/build_code_corpus.py --output_dir data/code_corpus        # once: the corpus
    python3 recipes/pretrain.py --config recipes/tiny/pretrain.yaml            # 2 CPU cores, minutes
    accelerate launch --config_file recipes/accelerate_configs/ddp.yaml --num_processes $GPUS recipes/pretrain.py --config recipes/r2/pretrain.yaml
    accelerate launch --config_file recipes/accelerate_configs/fsdp.yaml --num_processes $GPUS recipes/pretrain.py --config recipes/r2/pretrain.yaml
    python3 recipes/sft.py --config recipes/tiny/sft.yaml \\
        --model_name_or_path outputs/tiny-pretrain --tokenizer_name_or_path outputs/tiny-pretrain   # SFT from it

Reads `dataset_path`, a DatasetDict saved with `save_to_disk` with `train` and `validation` splits and a
`text` column (other columns are ignored), or `dataset_name`, a Hub dataset with those splits. Every
document gets an EOS and the token stream is cut into `max_length` rows (`packing_strategy: wrapped`; the
YAMLs say why not BFD). The loss is on every token. At each `eval_steps` it logs `eval_loss` and
`eval_bits_per_byte` on the validation split (`rusty_hf.training.pretraining`). Resume with
`--resume_from_checkpoint last`. Saves a Hub-ready folder (weights, remote code, tokenizer, card) that
recipes/sft.py loads as `model_name_or_path`.
"""

from __future__ import annotations

from rusty_hf.upstream_notices import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

from pathlib import Path

from datasets import Dataset, DatasetDict, load_dataset, load_from_disk
from trl import ModelConfig, SFTConfig, TrlParser, get_peft_config

from rusty_hf.configs import PretrainScriptArguments
from rusty_hf.tokenizer import load_tokenizer
from rusty_hf.training import load_or_create_model
from rusty_hf.training.pretraining import BitsPerByteSFTTrainer
from rusty_hf.training.run import train_and_finish

BUILD_CORPUS = "python3 recipes/build_code_corpus.py --output_dir data/code_corpus"


def _subset(dataset: Dataset, limit: int | None, seed: int) -> Dataset:
    # A seeded random subset, not the first rows: a corpus is often grouped by language or package.
    if limit is None or limit >= len(dataset):
        return dataset
    return dataset.shuffle(seed=seed).select(range(limit))


def load_text_splits(script_args: PretrainScriptArguments, seed: int = 0) -> tuple[Dataset, Dataset]:
    """The (train, validation) text datasets; a missing `dataset_path` fails naming the command that builds it."""
    train_split, eval_split = script_args.dataset_train_split, script_args.dataset_test_split
    if script_args.dataset_name:
        splits = {
            split: load_dataset(script_args.dataset_name, script_args.dataset_config, split=split)
            for split in (train_split, eval_split)
        }
    else:
        path = Path(script_args.dataset_path)
        if not path.exists():
            raise FileNotFoundError(
                f"no code corpus at {str(path)!r}. Fix: build it with `{BUILD_CORPUS}` (and pass "
                "--dataset_path if you wrote it elsewhere), or set dataset_name to a Hub dataset."
            )
        splits = load_from_disk(str(path))
        if not isinstance(splits, DatasetDict):
            raise ValueError(f"{path} holds a single Dataset; pretraining wants a DatasetDict with {train_split!r} "
                             f"and {eval_split!r} splits (rebuild it with `{BUILD_CORPUS}`)")
        missing = [split for split in (train_split, eval_split) if split not in splits]
        if missing:
            raise ValueError(f"{path} has splits {sorted(splits)}, not {missing}; set dataset_train_split / "
                             "dataset_test_split to the ones it has")
    return (
        _subset(splits[train_split], script_args.max_train_texts, seed),
        _subset(splits[eval_split], script_args.max_eval_texts, seed),
    )


def main(
    script_args: PretrainScriptArguments, training_args: SFTConfig, model_args: ModelConfig
) -> BitsPerByteSFTTrainer:
    train_dataset, eval_dataset = load_text_splits(script_args, training_args.seed)  # fail before building a model
    tokenizer = load_tokenizer(script_args.tokenizer_name_or_path)
    model = load_or_create_model(model_args, script_args, tokenizer, training_args.trust_remote_code)
    trainer = BitsPerByteSFTTrainer(
        model=model,
        args=training_args,
        train_dataset=train_dataset,
        eval_dataset=eval_dataset,
        processing_class=tokenizer,
        peft_config=get_peft_config(model_args),
    )
    train_and_finish(trainer, script_args, training_args, model_args)  # + model card, push_to_hub
    return trainer


if __name__ == "__main__":
    parser = TrlParser((PretrainScriptArguments, SFTConfig, ModelConfig))
    main(*parser.parse_args_and_config())
