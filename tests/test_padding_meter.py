"""PaddingMeter: the pad fraction and real tokens per step of training forwards, counted without host syncs."""

from __future__ import annotations

from types import SimpleNamespace

import torch

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.training.padding import PaddingMeter
from tests.conftest import tiny_config


class _Trainer:  # what attach uses of a Trainer: the model, the state's step, and log
    def __init__(self, model):
        self.model, self.state, self.logged = model, SimpleNamespace(global_step=0), []

    def log(self, logs, start_time=None):
        self.logged.append(dict(logs))


def test_padded_rows_give_their_pad_fraction_and_packed_rows_none():
    model = TinyRWKVForCausalLM(tiny_config()).train()
    trainer = _Trainer(model)
    PaddingMeter.attach(trainer)
    ids = torch.randint(2, 50, (2, 8))
    mask = torch.tensor([[1] * 8, [0] * 6 + [1] * 2])  # 10 real of 16
    model(input_ids=ids, attention_mask=mask, labels=ids)
    model(input_ids=ids[:1], labels=ids[:1])  # a padding-free row: all 8 real
    with torch.no_grad():
        model(input_ids=ids, attention_mask=mask)  # no-grad passes are not counted
    model.eval()
    model(input_ids=ids, attention_mask=mask)  # nor evaluation
    trainer.state.global_step = 2
    trainer.log({"loss": 1.0}, 0.0)
    assert trainer.logged[-1]["pad_fraction"] == round(1 - 18 / 24, 4) and trainer.logged[-1]["real_tokens_per_step"] == 9.0
    model.train()
    model(input_ids=ids[:1], labels=ids[:1])
    trainer.state.global_step = 3
    trainer.log({"loss": 1.0})
    assert trainer.logged[-1] == {"loss": 1.0, "pad_fraction": 0.0, "real_tokens_per_step": 8.0}


def test_logs_without_a_training_loss_are_left_alone():
    model = TinyRWKVForCausalLM(tiny_config()).train()
    trainer = _Trainer(model)
    PaddingMeter.attach(trainer)
    model(input_ids=torch.randint(2, 50, (1, 4)))
    trainer.log({"eval_loss": 1.0})
    assert trainer.logged == [{"eval_loss": 1.0}]
