"""`padding_free` SFT rows without packing (rusty_hf/training/lean_sft.py): ``max_length`` truncates each document,
the micro-batch trains as one row with `position_ids` restarting per document, with the lean step and without."""

import pytest
import torch
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.lean_sft import LeanSFTTrainer, PaddingFreeSFTTrainer
from tests.conftest import tiny_config


def _args(tmp_path, **overrides):
    return SFTConfig(output_dir=str(tmp_path), use_cpu=True, bf16=False, padding_free=True, max_length=12,
                     per_device_train_batch_size=3, max_steps=1, report_to="none", save_strategy="no", **overrides)


@pytest.mark.parametrize("trainer_cls", [PaddingFreeSFTTrainer, LeanSFTTrainer])
def test_documents_are_cut_to_max_length_and_trained_in_one_row(tmp_path, tiny_tokenizer, trainer_cls):
    texts = ["short one", "a much longer document " * 6, "mid sized text here"]
    model = TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))
    args = _args(tmp_path)
    trainer = trainer_cls(model=model, args=args, train_dataset=Dataset.from_dict({"text": texts}),
                          processing_class=tiny_tokenizer)
    lengths = [len(ids) for ids in trainer.train_dataset["input_ids"]]
    assert max(lengths) == 12 and min(lengths) < 12 and args.max_length == 12  # per document; the config kept
    batch = trainer.data_collator([trainer.train_dataset[i] for i in range(3)])
    assert batch["input_ids"].shape == (1, sum(lengths))
    starts = (batch["position_ids"][0] == 0).nonzero().squeeze(-1).tolist()
    assert starts == [0, lengths[0], lengths[0] + lengths[1]]
    assert torch.isfinite(torch.tensor(trainer.train().training_loss))


def test_trl_itself_still_refuses_the_pair(tmp_path, tiny_tokenizer):
    model = TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))
    with pytest.raises(ValueError, match="padding_free"):
        SFTTrainer(model=model, args=_args(tmp_path), train_dataset=Dataset.from_dict({"text": ["x y"]}),
                   processing_class=tiny_tokenizer)
