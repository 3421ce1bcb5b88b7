"""Heads over the TinyRWKV backbone besides the language model: a value head, sequence and token classification.

- `TinyRWKVForCausalLMWithValueHead`: the causal LM plus a scalar value per token (the PPO critic).
- `TinyRWKVForSequenceClassification`: a score per sequence read at its last real token, as transformers'
  decoder models do; `AutoModelForSequenceClassification` builds it, so TRL's `RewardTrainer` trains a
  reward model (`num_labels=1`) and any classifier from a TinyRWKV checkpoint.
- `TinyRWKVForTokenClassification`: a score per token.

    >>> import torch
    >>> from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForSequenceClassification
    >>> model = TinyRWKVForSequenceClassification(TinyRWKVConfig(vocab_size=99, d_embed=32, d_hidden=64, n_layers=2,
    ...                                                          num_labels=1))
    >>> model(torch.tensor([[5, 6, 7], [1, 8, 9]]), attention_mask=torch.tensor([[1, 1, 1], [0, 1, 1]])).logits.shape
    torch.Size([2, 1])

Each loads from a plain causal-LM checkpoint (the backbone's weights; the LM head is left out) and saves
its own head. Imports only torch, transformers and modules of this folder (remote code).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import torch
from torch import nn
from transformers.modeling_outputs import SequenceClassifierOutputWithPast, TokenClassifierOutput
from transformers.utils import ModelOutput

from .cache_tiny_rwkv import TinyRWKVCache
from .configuration_tiny_rwkv import TinyRWKVConfig
from .modeling_tiny_rwkv import TinyRWKVForCausalLM, TinyRWKVModel, TinyRWKVPreTrainedModel
from .packing import PACKING_KWARGS


@dataclass
class TinyRWKVCausalLMOutputWithValue(ModelOutput):
    """Causal LM output plus `value`, one scalar per token (B, T), for PPO critics."""

    loss: torch.FloatTensor | None = None
    logits: torch.FloatTensor | None = None
    value: torch.FloatTensor | None = None
    state: tuple[torch.FloatTensor, ...] | None = None
    hidden_states: tuple[torch.FloatTensor, ...] | None = None
    past_key_values: TinyRWKVCache | None = None


class TinyRWKVForCausalLMWithValueHead(TinyRWKVForCausalLM):
    """Causal LM plus a scalar value per token from the same trunk (the PPO critic).

    Loads from a plain causal-LM checkpoint, initialising only `v_head`; saves and reloads it.
    `v_head` stays float32 and out of quantizers (`_keep_in_fp32_modules`): one output unit has
    nothing to gain from quantization and bitsandbytes wants out_features % 32 == 0.
    """

    _keys_to_ignore_on_load_unexpected = []
    _keys_to_ignore_on_load_missing = [r"v_head"]
    _keep_in_fp32_modules = ["time_decay", "time_first", "v_head"]
    _keep_in_fp32_modules_strict = ["time_decay", "time_first", "v_head"]

    def __init__(self, config: TinyRWKVConfig):
        super().__init__(config)
        self.v_dropout = nn.Dropout(config.value_head_dropout)
        self.v_head = nn.Linear(config.d_hidden, 1)
        self.post_init()

    def save_pretrained(self, save_directory, *args, **kwargs):
        """Save weights (v_head included) and code; `auto_map` points AutoModelForCausalLM at the
        plain causal LM, so the checkpoint serves inference as-is and this class reloads the head."""
        super().save_pretrained(save_directory, *args, **kwargs)
        config_file = os.path.join(save_directory, "config.json")
        if os.path.isfile(config_file):
            with open(config_file, encoding="utf-8") as f:
                saved = json.load(f)
            auto_map = saved.get("auto_map") or {}
            if "AutoModelForCausalLM" in auto_map:
                repo = auto_map["AutoModelForCausalLM"].rpartition("--")[0]  # a Hub repo prefix, kept
                module = TinyRWKVForCausalLM.__module__.rsplit(".", 1)[-1]  # modeling_tiny_rwkv
                auto_map["AutoModelForCausalLM"] = f"{repo + '--' if repo else ''}{module}.{TinyRWKVForCausalLM.__name__}"
                with open(config_file, "w", encoding="utf-8") as f:
                    json.dump(saved, f, indent=2, sort_keys=True)
                    f.write("\n")

    def _output(self, loss, logits, out, return_dict: bool) -> TinyRWKVCausalLMOutputWithValue | tuple:
        """`TinyRWKVForCausalLM.forward`'s result plus `value` (B, T) for every position."""
        value = self.v_head(self.v_dropout(out.last_hidden_state).to(self.v_head.weight.dtype)).squeeze(-1)
        if not return_dict:
            return tuple(x for x in (loss, logits, value, out.state, out.hidden_states) if x is not None)
        return TinyRWKVCausalLMOutputWithValue(loss=loss, logits=logits, value=value, state=out.state,
                                               hidden_states=out.hidden_states, past_key_values=out.past_key_values)


def last_real_positions(input_ids: torch.Tensor | None, attention_mask: torch.Tensor | None, pad_token_id: int | None,
                        length: int, batch: int, device: torch.device) -> torch.Tensor:  # fmt: skip
    """(B,) the index of each row's last real token: from the mask when given, else from `pad_token_id`
    (left or right padding alike, as transformers' decoder classifiers do), else the last position."""
    positions = torch.arange(length, device=device)
    if attention_mask is not None:
        real = attention_mask.to(device).bool()
    elif input_ids is not None and pad_token_id is not None:
        real = input_ids.to(device) != pad_token_id
    else:
        return torch.full((batch,), length - 1, device=device)
    return torch.where(real, positions, -1).amax(dim=1).clamp(min=0)


def _backbone(model: TinyRWKVPreTrainedModel, kwargs: dict, **named):
    """`model.model(**named)` with the packing markers of `kwargs` (position_ids go in `named`)."""
    return model.model(return_dict=True, **named, **{k: kwargs[k] for k in PACKING_KWARGS if k in kwargs})


class TinyRWKVForSequenceClassification(TinyRWKVPreTrainedModel):
    """A score per sequence (`num_labels` of them) from the hidden state at its last real token.

    Regression (`num_labels=1`, a reward model), single- or multi-label classification follow
    `config.problem_type`, with transformers' loss for sequence classification."""

    _keys_to_ignore_on_load_unexpected = [r"lm_head", r"v_head"]

    def __init__(self, config: TinyRWKVConfig):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.model = TinyRWKVModel(config)
        self.score = nn.Linear(config.d_hidden, config.num_labels, bias=False)
        self.post_init()

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        inputs_embeds: torch.FloatTensor | None = None,
        past_key_values: TinyRWKVCache | None = None,
        position_ids: torch.LongTensor | None = None,
        labels: torch.Tensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> SequenceClassifierOutputWithPast | tuple:
        out = _backbone(self, kwargs, input_ids=input_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds,
                        past_key_values=past_key_values, use_cache=use_cache, output_hidden_states=output_hidden_states,
                        position_ids=position_ids)
        hidden = out.last_hidden_state
        batch, length = hidden.shape[:2]
        last = last_real_positions(input_ids, attention_mask, self.config.pad_token_id, length, batch, hidden.device)
        pooled = self.score(hidden[torch.arange(batch, device=hidden.device), last])  # (B, num_labels)
        loss = None
        if labels is not None:
            loss = self.loss_function(logits=pooled, labels=labels, pooled_logits=pooled, config=self.config)
        return_dict = return_dict if return_dict is not None else self.config.return_dict
        if not return_dict:
            return tuple(x for x in (loss, pooled, out.past_key_values, out.hidden_states) if x is not None)
        return SequenceClassifierOutputWithPast(loss=loss, logits=pooled, past_key_values=out.past_key_values,
                                                hidden_states=out.hidden_states)  # fmt: skip


class TinyRWKVForTokenClassification(TinyRWKVPreTrainedModel):
    """A score per token (`num_labels` of them); a causal model, so each token sees only its left context."""

    _keys_to_ignore_on_load_unexpected = [r"lm_head", r"v_head"]

    def __init__(self, config: TinyRWKVConfig):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.model = TinyRWKVModel(config)
        self.dropout = nn.Dropout(getattr(config, "classifier_dropout", None) or 0.0)
        self.classifier = nn.Linear(config.d_hidden, config.num_labels)
        self.post_init()

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        inputs_embeds: torch.FloatTensor | None = None,
        position_ids: torch.LongTensor | None = None,
        labels: torch.LongTensor | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> TokenClassifierOutput | tuple:
        out = _backbone(self, kwargs, input_ids=input_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds,
                        use_cache=False, output_hidden_states=output_hidden_states, position_ids=position_ids)
        logits = self.classifier(self.dropout(out.last_hidden_state))
        loss = None if labels is None else self.loss_function(logits, labels, self.config)
        return_dict = return_dict if return_dict is not None else self.config.return_dict
        if not return_dict:
            return tuple(x for x in (loss, logits, out.hidden_states) if x is not None)
        return TokenClassifierOutput(loss=loss, logits=logits, hidden_states=out.hidden_states)


__all__ = [
    "TinyRWKVCausalLMOutputWithValue",
    "TinyRWKVForCausalLMWithValueHead",
    "TinyRWKVForSequenceClassification",
    "TinyRWKVForTokenClassification",
]
