"""TinyRWKV: a small RWKV-4 language model as a native transformers model.

Read bottom-up in the order of the architecture: token shift -> time-mix (WKV attention) ->
channel-mix (squared-ReLU FFN) -> block -> backbone (`TinyRWKVModel`) -> causal LM head
(`TinyRWKVForCausalLM`, alias `TinyRWKVLM`). The other heads over the same backbone (value head for
PPO, sequence and token classification) are in `modeling_tiny_rwkv_heads`.

    >>> import torch
    >>> from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM
    >>> model = TinyRWKVForCausalLM(TinyRWKVConfig(vocab_size=99, d_embed=32, d_hidden=64, n_layers=2))
    >>> out = model(torch.tensor([[5, 6, 7]]), use_cache=True)
    >>> out.logits.shape, len(out.state)
    (torch.Size([1, 3, 99]), 5)

What differs from transformers' `RwkvForCausalLM`: `attention_mask` is honoured (pad tokens
touch neither the WKV state nor the token shift, so left-padded batches match unpadded runs),
training runs a WKV with an analytic backward instead of autograd through a loop, the original
RWKV-4 initialisation is kept, and the embedding is narrower than the residual stream.

The recurrent state is a tuple of five float32 tensors, each (batch, n_layers, d_hidden):
time-mix shift, WKV numerator `a`, denominator `b`, exponent `p`, channel-mix shift. `generate` carries
it as a `TinyRWKVCache` (`past_key_values`, which beam search reorders and a later call continues);
`forward` also takes and returns the bare tuple as `state`. Packed rows (`position_ids` restarting at
0, `cu_seq_lens_q`, `seq_idx`) reset it at each document (`packing`), to the empty state or to a
`document_state` (batch 1) that the backbone's `forward` takes: a prompt every document starts with, run once.

This file is copied next to the weights by `save_pretrained` (remote code): it imports only
torch, transformers and modules of this folder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers.conversion_mapping import register_checkpoint_conversion_mapping
from transformers.core_model_loading import ConversionOps, WeightConverter
from transformers.loss.loss_utils import ForCausalLMLoss
from transformers.modeling_layers import GradientCheckpointingLayer
from transformers.utils import ModelOutput

from .cache_tiny_rwkv import TinyRWKVCache
from .configuration_tiny_rwkv import TinyRWKVConfig
from .cpu_decode import decode_step, fused_decode_params
from .cpu_kernels import cross_entropy, relu_square
from .decode_graphs import graphed_step
from .inference_cache import decoding_session, fast_linear
from .sampling import install as install_cpu_sampling
from .packing import PACKING_KWARGS, Documents, boundary_labels, document_starts, shift_with_starts, wkv_documents
from .wkv import MIN_EXPONENT, wkv

STATE_FIELDS = ("att_shift", "att_a", "att_b", "att_p", "ffn_shift")


def token_shift(
    x: torch.Tensor, prev: torch.Tensor, mask: torch.Tensor | None, docs: Documents | None = None, part: int = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """x_{t-1} for every t, and the new `prev` (x at each row's last real token).

    With a mask, a position right after padding sees `prev` (zeros or the carried state), as if
    the padding were not there. Exact for left padding, which is what batched generation uses.
    In packed rows (`docs`), the first position of each document sees zeros, its empty state, or the
    shift `docs.start[part]` (`part`: the state field, STATE_FIELDS' att_shift 0 or ffn_shift 4).
    """
    start = None if docs is None or docs.start is None else docs.start[part]
    prev = prev.to(x.dtype)
    shifted = torch.cat([prev.unsqueeze(1), x[:, :-1]], dim=1)  # (B, T, C)
    if docs is not None:
        shifted = shift_with_starts(shifted, docs.starts, start)
    if mask is None:
        return shifted, x[:, -1]
    prev_is_real = torch.cat([torch.ones_like(mask[:, :1]), mask[:, :-1]], dim=1).bool()
    shifted = torch.where(prev_is_real[:, :, None], shifted, prev.unsqueeze(1))
    if docs is not None:
        shifted = shift_with_starts(shifted, docs.starts, start)
    positions = torch.arange(x.shape[1], device=x.device)
    last = torch.where(mask.bool(), positions, -1).amax(dim=1)  # (B,), -1 if the row is all padding
    last_x = x[torch.arange(x.shape[0], device=x.device), last.clamp(min=0)]
    return shifted, torch.where((last >= 0)[:, None], last_x, prev)


MIX_WEIGHTS = ("time_mix_k", "time_mix_v", "time_mix_r")  # the token-shift mixing weights, (d_hidden,) each


class _MixLayout(ConversionOps):
    """The mixing weights' file layout, (1, 1, C) as RWKV-4 checkpoints store them, to (C,) and back.

    In memory they are (C,): with (1, 1, C) parameters, any second `torch.compile` of a training step in one
    process fails in backward on torch 2.11 with CUDA ("invalid gradient ... got [512] but expected shape
    compatible with [1, 1, 512]"; benchmarks/compile_recompile.py). Files keep (1, 1, C), so checkpoints
    saved before and after load alike: `from_pretrained` reshapes to (C,), `save_pretrained` back."""

    def __init__(self, shape: tuple[int, ...]):
        self.shape = shape

    @torch.no_grad()
    def convert(self, input_dict, source_patterns, target_patterns, **kwargs):
        tensors = next(iter(input_dict.values()))
        tensor = tensors[0] if isinstance(tensors, list) else tensors
        return {target_patterns[0]: tensor.reshape(self.shape)}

    @property
    def reverse_op(self) -> ConversionOps:
        return _MixLayout((-1,) if self.shape != (-1,) else (1, 1, -1))


def _register_mix_layout() -> None:
    converters = [WeightConverter(name, name, [_MixLayout((-1,))]) for name in MIX_WEIGHTS]
    register_checkpoint_conversion_mapping(TinyRWKVConfig.model_type, converters, overwrite=True)


_register_mix_layout()


class _FlatMixWeights(nn.Module):
    """`load_state_dict` of a (1, 1, C) mixing weight into the (C,) parameter (a Trainer resuming from a
    checkpoint loads with torch's `load_state_dict`, not through `from_pretrained`'s conversion)."""

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        for name in MIX_WEIGHTS:
            value = state_dict.get(prefix + name)
            if value is not None and value.dim() == 3:
                state_dict[prefix + name] = value.reshape(-1)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


class TinyRWKVTimeMix(_FlatMixWeights):
    """RWKV-4 time-mix: token-shift mixing, then `W_o(sigmoid(r) * WKV(w, u, k, v))`."""

    def __init__(self, config: TinyRWKVConfig, layer_id: int):
        super().__init__()
        self.layer_id = layer_id
        C = config.d_hidden
        self.time_decay = nn.Parameter(torch.zeros(C))  # w = -exp(time_decay)
        self.time_first = nn.Parameter(torch.zeros(C))  # u, the bonus of the current token
        self.time_mix_k = nn.Parameter(torch.zeros(C))
        self.time_mix_v = nn.Parameter(torch.zeros(C))
        self.time_mix_r = nn.Parameter(torch.zeros(C))
        self.key = nn.Linear(C, C, bias=False)
        self.value = nn.Linear(C, C, bias=False)
        self.receptance = nn.Linear(C, C, bias=False)
        self.output = nn.Linear(C, C, bias=False)

    def forward(self, x, shift, wkv_state, mask, docs=None):
        xx, new_shift = token_shift(x, shift, mask, docs, part=0)
        delta = x - xx
        k = fast_linear(self.key, torch.addcmul(xx, delta, self.time_mix_k))
        v = fast_linear(self.value, torch.addcmul(xx, delta, self.time_mix_v))
        r = fast_linear(self.receptance, torch.addcmul(xx, delta, self.time_mix_r))
        w = -torch.exp(self.time_decay.float())
        if docs is None:
            y, new_wkv_state = wkv(w, self.time_first, k, v, wkv_state, mask)
        else:
            y, new_wkv_state = wkv_documents(w, self.time_first, k, v, wkv_state, mask, docs)
        out = fast_linear(self.output, (torch.sigmoid(r.float()) * y).to(x.dtype))
        return out, new_shift, new_wkv_state


class TinyRWKVChannelMix(_FlatMixWeights):
    """RWKV-4 channel-mix: `sigmoid(W_r xr) * W_v relu(W_k xk)^2`."""

    def __init__(self, config: TinyRWKVConfig, layer_id: int):
        super().__init__()
        self.layer_id = layer_id
        C = config.d_hidden
        self.time_mix_k = nn.Parameter(torch.zeros(C))
        self.time_mix_r = nn.Parameter(torch.zeros(C))
        self.key = nn.Linear(C, config.d_ffn, bias=False)
        self.receptance = nn.Linear(C, C, bias=False)
        self.value = nn.Linear(config.d_ffn, C, bias=False)

    def forward(self, x, shift, mask, docs=None):
        xx, new_shift = token_shift(x, shift, mask, docs, part=4)
        delta = x - xx
        k = relu_square(fast_linear(self.key, torch.addcmul(xx, delta, self.time_mix_k)))
        r = torch.sigmoid(fast_linear(self.receptance, torch.addcmul(xx, delta, self.time_mix_r)))
        return r * fast_linear(self.value, k), new_shift


class TinyRWKVBlock(GradientCheckpointingLayer):
    """Pre-norm residual block: `x + att(ln1(x))`, then `x + ffn(ln2(x))`."""

    def __init__(self, config: TinyRWKVConfig, layer_id: int):
        super().__init__()
        self.layer_id = layer_id
        self.ln1 = nn.LayerNorm(config.d_hidden, eps=config.layer_norm_epsilon)
        self.ln2 = nn.LayerNorm(config.d_hidden, eps=config.layer_norm_epsilon)
        self.att = TinyRWKVTimeMix(config, layer_id)
        self.ffn = TinyRWKVChannelMix(config, layer_id)

    def forward(self, hidden, att_shift, att_a, att_b, att_p, ffn_shift, mask=None, docs=None):
        att_out, att_shift, (att_a, att_b, att_p) = self.att(
            self.ln1(hidden), att_shift, (att_a, att_b, att_p), mask, docs
        )
        hidden = hidden + att_out
        ffn_out, ffn_shift = self.ffn(self.ln2(hidden), ffn_shift, mask, docs)
        hidden = hidden + ffn_out
        return hidden, (att_shift.float(), att_a, att_b, att_p, ffn_shift.float())


@dataclass
class TinyRWKVModelOutput(ModelOutput):
    """Backbone output: final hidden states (after `ln_out`) and the recurrent state."""

    last_hidden_state: torch.FloatTensor | None = None
    state: tuple[torch.FloatTensor, ...] | None = None
    hidden_states: tuple[torch.FloatTensor, ...] | None = None
    past_key_values: TinyRWKVCache | None = None  # the same state, as the Cache `generate` carries


@dataclass
class TinyRWKVCausalLMOutput(ModelOutput):
    """Causal LM output with the recurrent state (the "cache" generation carries)."""

    loss: torch.FloatTensor | None = None
    logits: torch.FloatTensor | None = None
    state: tuple[torch.FloatTensor, ...] | None = None
    hidden_states: tuple[torch.FloatTensor, ...] | None = None
    past_key_values: TinyRWKVCache | None = None  # the same state, as the Cache `generate` carries


class TinyRWKVPreTrainedModel(PreTrainedModel):
    config_class = TinyRWKVConfig
    config: TinyRWKVConfig
    base_model_prefix = "model"
    main_input_name = "input_ids"
    _no_split_modules = ["TinyRWKVBlock"]
    # WKV exponents need float32 range even when the rest of the model runs in bf16/fp16
    # (transformers applies the plain list to fp16 loads only, the strict one to bf16 too).
    _keep_in_fp32_modules = ["time_decay", "time_first"]
    _keep_in_fp32_modules_strict = ["time_decay", "time_first"]
    supports_gradient_checkpointing = True
    _is_stateful = True

    def save_pretrained(self, save_directory, *args, **kwargs):
        """`PreTrainedModel.save_pretrained`, saved as this file's class also when FSDP2 has sharded the model.

        `fully_shard` swaps the instance's class for a generated `FSDP<Class>(FSDPModule, Class)` defined in
        torch; transformers strips that prefix from `architectures` but not from `auto_map`, and would copy
        torch's FSDP files as the remote code. The class is swapped back for the save (hooks and sharded
        parameters belong to the instance, not the class), then restored."""
        wrapped = type(self)
        own = next(cls for cls in wrapped.__mro__ if not cls.__module__.startswith("torch."))
        if own is wrapped:
            # Trainers turn use_cache off for gradient checkpointing; a saved model always decodes with its state.
            use_cache, self.config.use_cache = self.config.use_cache, True
            try:
                return super().save_pretrained(save_directory, *args, **kwargs)
            finally:
                self.config.use_cache = use_cache
        self.__class__ = own
        try:
            return self.save_pretrained(save_directory, *args, **kwargs)  # own's chain (the value head's auto_map)
        finally:
            self.__class__ = wrapped

    @torch.no_grad()
    def _init_weights(self, module: nn.Module):
        """The original RWKV-4 initialisation (BlinkDL v4neo), layer-dependent."""
        cfg = self.config
        if isinstance(module, TinyRWKVTimeMix):
            C, L, lid = cfg.d_hidden, cfg.n_layers, module.layer_id
            depth = lid / max(L - 1, 1)  # 0 at the bottom, 1 at the top
            shallow = 1.0 - lid / L  # 1 at the bottom, ~0 at the top
            h = torch.arange(C, dtype=torch.float32)
            ramp = h / C
            _copy(module.time_decay, -5 + 8 * (h / max(C - 1, 1)) ** (0.7 + 1.3 * depth))
            zigzag = ((h + 1) % 3 - 1) * 0.5
            _copy(module.time_first, math.log(0.3) + zigzag)
            _copy(module.time_mix_k, ramp**shallow)
            _copy(module.time_mix_v, ramp**shallow + 0.3 * depth)
            _copy(module.time_mix_r, ramp ** (0.5 * shallow))
        elif isinstance(module, TinyRWKVChannelMix):
            ramp = torch.arange(cfg.d_hidden, dtype=torch.float32) / cfg.d_hidden
            shallow = 1.0 - module.layer_id / cfg.n_layers
            _copy(module.time_mix_k, ramp**shallow)
            _copy(module.time_mix_r, ramp**shallow)
        elif isinstance(module, nn.Embedding):
            _init_param(module.weight, lambda t: nn.init.uniform_(t, -1e-4, 1e-4))
        elif isinstance(module, nn.LayerNorm):
            _init_param(module.weight, nn.init.ones_)
            _init_param(module.bias, nn.init.zeros_)
        elif isinstance(module, nn.Linear):
            self._init_linear(module)

    def _init_linear(self, module: nn.Linear) -> None:
        name = next((n for n, m in self.named_modules() if m is module), "")
        zero_init = (".att.key", ".att.receptance", ".att.output", ".ffn.value", ".ffn.receptance")
        if name.endswith(zero_init):
            # Each block starts as the identity; RWKV-4 trains from here (ReZero-like).
            _init_param(module.weight, nn.init.zeros_)
        elif name.endswith(("v_head", "score", "classifier")):  # heads over the residual stream: small, not zero
            _init_param(module.weight, lambda t: nn.init.normal_(t, std=1.0 / (module.in_features + 1)))
        else:
            out_f, in_f = module.weight.shape
            gain = math.sqrt(out_f / in_f) if out_f > in_f else 1.0
            if name.endswith("lm_head"):
                gain *= 0.5
            _init_param(module.weight, lambda t: nn.init.orthogonal_(t, gain=gain))
        if module.bias is not None:
            _init_param(module.bias, nn.init.zeros_)


def _init_param(param: torch.Tensor, fn) -> None:
    """Initialise unless transformers has already loaded this tensor from a checkpoint."""
    if getattr(param, "_is_hf_initialized", False):
        return
    if param.device.type == "meta":
        return
    data = param.data.float() if param.dtype not in (torch.float32, torch.float64) else param.data
    fn(data)
    if data is not param.data:
        param.data.copy_(data)


def _copy(param: torch.Tensor, value: torch.Tensor) -> None:
    _init_param(param, lambda t: t.copy_(value.to(t.dtype).view_as(t)))


class TinyRWKVModel(TinyRWKVPreTrainedModel):
    """The backbone: embedding (d_embed) -> projection (d_hidden) -> ln0 -> blocks -> ln_out."""

    def __init__(self, config: TinyRWKVConfig):
        super().__init__(config)
        self.emb = nn.Embedding(config.vocab_size, config.d_embed)
        self.emb_proj = nn.Linear(config.d_embed, config.d_hidden, bias=False)
        self.ln0 = nn.LayerNorm(config.d_hidden, eps=config.layer_norm_epsilon)
        self.blocks = nn.ModuleList(TinyRWKVBlock(config, i) for i in range(config.n_layers))
        self.ln_out = nn.LayerNorm(config.d_hidden, eps=config.layer_norm_epsilon)
        self.gradient_checkpointing = False
        self.post_init()

    def get_input_embeddings(self) -> nn.Embedding:
        return self.emb

    def set_input_embeddings(self, value: nn.Embedding) -> None:
        self.emb = value

    def empty_state(self, batch_size: int, device=None) -> tuple[torch.Tensor, ...]:
        """The state before any token, five (B, n_layers, d_hidden) float32 tensors."""
        shape = (batch_size, self.config.n_layers, self.config.d_hidden)
        zeros = [torch.zeros(shape, device=device, dtype=torch.float32) for _ in range(4)]
        return zeros[0], zeros[1], zeros[2], torch.full(shape, MIN_EXPONENT, device=device), zeros[3]

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        inputs_embeds: torch.FloatTensor | None = None,
        state: tuple[torch.Tensor, ...] | None = None,
        past_key_values: TinyRWKVCache | None = None,
        position_ids: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> TinyRWKVModelOutput | tuple:
        """Embed, run the blocks from `past_key_values` (or the legacy `state` tuple), return the new state.

        Packed rows: `position_ids` that restart at 0, `cu_seq_lens_q` or `seq_idx` (TRL's padding-free and
        bfd packing, `DataCollatorWithFlattening`) reset the state at each document's start (`packing`).
        With `use_cache`, the new state is written into `past_key_values` (a new `TinyRWKVCache` when none
        was passed) and also returned as the `state` tuple.
        """
        if (input_ids is None) == (inputs_embeds is None):
            raise ValueError("Pass exactly one of input_ids or inputs_embeds.")
        cache, state = _incoming_cache(past_key_values, state)
        if inputs_embeds is None:
            inputs_embeds = self.emb(input_ids)
        B, T = inputs_embeds.shape[:2]
        use_cache = use_cache if use_cache is not None else (self.config.use_cache and not self.training)
        output_hidden_states = output_hidden_states or False
        return_dict = return_dict if return_dict is not None else self.config.return_dict
        starts = document_starts((B, T), inputs_embeds.device, position_ids, kwargs.get("cu_seq_lens_q"),
                                 kwargs.get("seq_idx"))  # fmt: skip
        if not output_hidden_states and starts is None:
            # A decoding step on CUDA: one CUDA-graph replay of `_trunk` (decode_graphs). It reads the
            # mask on the device, so it runs before `_normalise_mask`, which reads it on the host.
            trunk = [self.emb_proj, self.ln0, self.blocks, self.ln_out]
            graphed = graphed_step(self, inputs_embeds, state, attention_mask, trunk, _GRAPHABLE_MODULES)
            if graphed is not None:
                return self._output(*graphed, None, use_cache, return_dict, cache, T)
        mask = _normalise_mask(attention_mask, inputs_embeds.shape[:2])
        incoming = state is not None
        if state is None:
            state = self.empty_state(B, inputs_embeds.device)
        elif state[0].shape[0] != B:
            raise ValueError(f"the cache (state) has batch size {state[0].shape[0]} but the input has {B}.")
        document_state = kwargs.get("document_state")  # where new documents start instead of the empty state
        if document_state is not None:
            document_state = tuple(part.to(inputs_embeds.device) for part in document_state)
        if starts is not None and (document_state is not None or (incoming and bool(starts[:, 0].any()))):
            # a row that begins a new document forgets the past
            fresh = self.empty_state(B, inputs_embeds.device) if document_state is None else document_state
            state = tuple(torch.where(starts[:, 0, None, None], f.expand_as(s), s) for s, f in zip(state, fresh))
        docs = Documents.from_starts(starts)
        hidden, new_state, all_hidden = self._trunk(inputs_embeds, state, mask, output_hidden_states, use_cache, docs,
                                                    document_state)  # fmt: skip
        return self._output(hidden, new_state, all_hidden, use_cache, return_dict, cache, T)

    def _trunk(self, inputs_embeds, state, mask, output_hidden_states: bool = False, use_cache: bool = True,
               docs: Documents | None = None, document_state: tuple[torch.Tensor, ...] | None = None):  # fmt: skip
        """Projection, blocks and final norm: (hidden, new_state or None without use_cache, all_hidden or None)."""
        hidden = self.ln0(fast_linear(self.emb_proj, inputs_embeds))  # (B, T, d_hidden)
        all_hidden = (hidden,) if output_hidden_states else None
        fused = None if docs is not None else fused_decode_params(self.blocks, hidden, mask, _BLOCK_TYPES)
        if fused is not None:
            hidden, new_state, all_hidden = decode_step(fused, hidden, state, all_hidden)
        else:
            new_layers = []
            for i, block in enumerate(self.blocks):
                layer_state = [s[:, i] for s in state]
                layer_docs = None if docs is None else docs.for_layer(document_state, i)
                hidden, layer_state = block(hidden, *layer_state, mask=mask, docs=layer_docs)
                new_layers.append(layer_state)
                if output_hidden_states:
                    all_hidden += (hidden,)
            new_state = tuple(torch.stack(parts, dim=1) for parts in zip(*new_layers)) if use_cache else None
        hidden = self.ln_out(hidden)
        return hidden, new_state, all_hidden

    @staticmethod
    def _output(hidden, new_state, all_hidden, use_cache, return_dict, cache=None, new_tokens=0):
        new_state = new_state if use_cache else None
        if new_state is not None:
            cache = cache if cache is not None else TinyRWKVCache()
            cache.update_state(new_state, new_tokens)
        else:
            cache = None
        if not return_dict:
            return tuple(x for x in (hidden, new_state, all_hidden) if x is not None)
        return TinyRWKVModelOutput(last_hidden_state=hidden, state=new_state, hidden_states=all_hidden,
                                   past_key_values=cache)  # fmt: skip


def _incoming_cache(past_key_values, state) -> tuple[TinyRWKVCache | None, tuple[torch.Tensor, ...] | None]:
    """(the cache to update, the state to start from) from `forward`'s `past_key_values` and legacy `state`."""
    if past_key_values is None:
        return None, state
    if not isinstance(past_key_values, TinyRWKVCache):
        raise TypeError(
            f"past_key_values must be a TinyRWKVCache (what this model returns as out.past_key_values), got "
            f"{type(past_key_values).__name__}: a recurrent model has no key/value cache. Pass the cache a previous "
            "call returned, or None."
        )
    if state is not None:
        raise ValueError("Pass either past_key_values or state, not both (state is the same recurrent state as a tuple).")
    return past_key_values, past_key_values.state


_BLOCK_TYPES = (TinyRWKVBlock, TinyRWKVTimeMix, TinyRWKVChannelMix)  # what the fused CPU step computes (cpu_decode)
# What a CUDA-graph decoding step may consist of: exactly these module types (decode_graphs).
_GRAPHABLE_MODULES = (nn.Linear, nn.LayerNorm, nn.ModuleList, TinyRWKVBlock, TinyRWKVTimeMix, TinyRWKVChannelMix)


def _normalise_mask(attention_mask: torch.Tensor | None, shape: torch.Size) -> torch.Tensor | None:
    """None when every token is real (the fast path); else a (B, T) mask. Rejects 4D masks."""
    if attention_mask is None:
        return None
    if attention_mask.dim() != 2 or tuple(attention_mask.shape) != tuple(shape):
        raise ValueError(
            f"attention_mask must be (batch, seq_len) = {tuple(shape)}, got {tuple(attention_mask.shape)}; "
            "TinyRWKV is recurrent and takes a 2D padding mask, not an attention matrix."
        )
    # Under torch.compile the mask stays (the masked path is exact too): the check needs the data.
    if not torch.compiler.is_compiling() and bool(attention_mask.all()):
        return None
    return attention_mask


def causal_lm_loss(
    logits: torch.Tensor,
    labels: torch.Tensor,
    vocab_size: int,
    num_items_in_batch: torch.Tensor | int | None = None,
    ignore_index: int = -100,
    shift_labels: torch.Tensor | None = None,
    **kwargs,
) -> torch.Tensor:
    """transformers' `ForCausalLMLoss` (same shift, float32 upcast and reductions, `num_items_in_batch`
    for gradient accumulation) with `cpu_kernels.cross_entropy`, which on CPU never writes the
    log-softmax of every position."""
    logits = logits.float()
    if shift_labels is None:
        shift_labels = nn.functional.pad(labels, (0, 1), value=ignore_index)[..., 1:]
    logits = logits.reshape(-1, vocab_size)
    shift_labels = shift_labels.reshape(-1).to(logits.device)
    if num_items_in_batch is None:
        return cross_entropy(logits, shift_labels, ignore_index, "mean")
    if torch.is_tensor(num_items_in_batch):
        num_items_in_batch = num_items_in_batch.to(logits.device)
    return cross_entropy(logits, shift_labels, ignore_index, "sum") / num_items_in_batch


def _slice_for_logits(hidden: torch.Tensor, logits_to_keep: int | torch.Tensor) -> torch.Tensor:
    if isinstance(logits_to_keep, int):
        return hidden if logits_to_keep == 0 else hidden[:, -logits_to_keep:]
    return hidden[:, logits_to_keep]


class TinyRWKVForCausalLM(TinyRWKVPreTrainedModel, GenerationMixin):
    """TinyRWKV with an untied language-modelling head; generates with an O(1)-per-token state."""

    _keys_to_ignore_on_load_unexpected = [r"v_head"]

    def __init__(self, config: TinyRWKVConfig):
        super().__init__(config)
        self.model = TinyRWKVModel(config)
        self.lm_head = nn.Linear(config.d_hidden, config.vocab_size, bias=False)
        self.post_init()

    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    def generate(self, *args, **kwargs):
        """`GenerationMixin.generate`, inside a `decoding_session` (inference_cache): for its whole call the
        few-row CPU steps may use weight copies packed at its start, made again at the next call, and sampling
        on CPU draws by inverse CDF instead of torch's per-token exponentials (`sampling`)."""
        if self.device.type == "cpu":
            install_cpu_sampling()
        with decoding_session():
            return super().generate(*args, **kwargs)

    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        next_sequence_length: int | None = None,
        past_key_values: TinyRWKVCache | None = None,
        attention_mask: torch.Tensor | None = None,
        inputs_embeds: torch.FloatTensor | None = None,
        is_first_iteration: bool | None = False,
        **kwargs,
    ) -> dict:
        """The positions the cache has not read yet (`next_sequence_length` of them, as `generate` slices),
        their slice of the padding mask, and the cache. Without a cache, the whole sequence each step."""
        if inputs_embeds is not None and is_first_iteration:
            embeds = inputs_embeds[:, -next_sequence_length:] if next_sequence_length is not None else inputs_embeds
            model_inputs = {"inputs_embeds": embeds, "input_ids": None}
            length = embeds.shape[1]
        else:
            ids = input_ids[:, -next_sequence_length:] if next_sequence_length is not None else input_ids
            model_inputs = {"input_ids": ids}
            length = ids.shape[1]
        if attention_mask is not None:
            model_inputs["attention_mask"] = attention_mask[:, -length:]
        model_inputs["past_key_values"] = past_key_values
        # position_ids would mark document starts (packing); generation never packs, and the state is the position.
        kwargs.pop("position_ids", None)
        kwargs.pop("state", None)
        for key, value in kwargs.items():
            if key not in model_inputs and key not in ("labels", "cache_position"):
                model_inputs[key] = value
        return model_inputs

    def _causal_lm_loss(self, logits: torch.Tensor, labels: torch.Tensor, starts: torch.Tensor | None = None,
                        **kwargs) -> torch.Tensor:  # fmt: skip
        """`self.loss_function`; the default one (transformers' ForCausalLMLoss) runs as `causal_lm_loss`.
        In packed rows (`starts`), no position predicts the next document's first token."""
        for key in PACKING_KWARGS:
            kwargs.pop(key, None)
        if starts is not None and kwargs.get("shift_labels") is None:
            kwargs["shift_labels"] = boundary_labels(labels, starts)
        if self.loss_function is ForCausalLMLoss:
            return causal_lm_loss(logits, labels, vocab_size=self.config.vocab_size, **kwargs)
        return self.loss_function(logits, labels, vocab_size=self.config.vocab_size, **kwargs)

    def _lm_forward(self, input_ids, inputs_embeds, output_hidden_states, **backbone_kwargs):
        return self.model(input_ids=input_ids, inputs_embeds=inputs_embeds, output_hidden_states=output_hidden_states,
                          return_dict=True, **backbone_kwargs)  # fmt: skip

    @staticmethod
    def _backbone_kwargs(kwargs: dict, **named) -> dict:
        """What of `forward`'s arguments goes to the backbone: the named ones and the packing markers."""
        return {**named, **{key: kwargs[key] for key in PACKING_KWARGS if key in kwargs}}

    def _loss(self, logits, labels, position_ids, kwargs):
        if labels is None:
            return None
        starts = document_starts(labels.shape[:2], labels.device, position_ids, kwargs.get("cu_seq_lens_q"),
                                 kwargs.get("seq_idx"))  # fmt: skip
        return self._causal_lm_loss(logits, labels, starts=starts, **kwargs)

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        attention_mask: torch.Tensor | None = None,
        inputs_embeds: torch.FloatTensor | None = None,
        state: tuple[torch.Tensor, ...] | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        logits_to_keep: int | torch.Tensor = 0,
        past_key_values: TinyRWKVCache | None = None,
        position_ids: torch.LongTensor | None = None,
        **kwargs,
    ) -> TinyRWKVCausalLMOutput | tuple:
        """Standard causal-LM forward; `labels` are shifted inside (transformers convention).

        `logits_to_keep` computes the head only on the last positions (generation and TRL use it).
        `past_key_values` (a `TinyRWKVCache`) continues from a state and is updated; packing markers
        (`position_ids` restarting at 0, `cu_seq_lens_q`, `seq_idx`) keep documents apart. Other kwargs,
        such as `num_items_in_batch`, go to the loss.
        """
        out = self._lm_forward(input_ids, inputs_embeds, output_hidden_states, **self._backbone_kwargs(
            kwargs, attention_mask=attention_mask, state=state, past_key_values=past_key_values,
            position_ids=position_ids, use_cache=use_cache))  # fmt: skip
        logits = fast_linear(self.lm_head, _slice_for_logits(out.last_hidden_state, logits_to_keep))
        loss = self._loss(logits, labels, position_ids, kwargs)
        return self._output(loss, logits, out, return_dict if return_dict is not None else self.config.return_dict)

    def _output(self, loss, logits, out: TinyRWKVModelOutput, return_dict: bool) -> TinyRWKVCausalLMOutput | tuple:
        """The forward's result from the loss, the logits and the backbone's output (heads add fields here)."""
        if not return_dict:
            return tuple(x for x in (loss, logits, out.state, out.hidden_states) if x is not None)
        return TinyRWKVCausalLMOutput(loss=loss, logits=logits, state=out.state, hidden_states=out.hidden_states,
                                      past_key_values=out.past_key_values)  # fmt: skip


TinyRWKVLM = TinyRWKVForCausalLM  # the seed's name

__all__ = [
    "TinyRWKVCausalLMOutput",
    "TinyRWKVForCausalLM",
    "TinyRWKVLM",
    "TinyRWKVModel",
    "TinyRWKVModelOutput",
    "TinyRWKVPreTrainedModel",
]
