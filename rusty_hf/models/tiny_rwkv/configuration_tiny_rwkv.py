"""Configuration of TinyRWKV, the RWKV-4 language model behind Rusty.

The defaults are Rusty-R2: 4 layers, a 256-wide token embedding projected up to a 512-wide
residual stream, a 4x channel-mix, a 24,000-token vocabulary and an untied output head.

    >>> from rusty_hf.models.tiny_rwkv import TinyRWKVConfig
    >>> TinyRWKVConfig().num_hidden_layers
    4
    >>> TinyRWKVConfig(d_hidden=64, d_embed=32, vocab_size=99).hidden_size
    64

This file is copied next to the weights by `save_pretrained` (remote code): it imports nothing
from rusty_hf.
"""

from transformers import PretrainedConfig


class TinyRWKVConfig(PretrainedConfig):
    r"""Configuration for [`TinyRWKVModel`] and [`TinyRWKVForCausalLM`].

    Args:
        vocab_size (`int`, defaults to 24000):
            Tokens in the vocabulary (the Rusty BPE has 24,000). A multiple of 32 keeps the head
            quantizable by bitsandbytes 4-bit.
        d_embed (`int`, defaults to 256):
            Width of the token embedding. Smaller than `d_hidden` because at this size the
            embedding table is a large share of all parameters; a linear projection lifts it.
        d_hidden (`int`, defaults to 512):
            Width of the residual stream (also the WKV channel count).
        n_layers (`int`, defaults to 4):
            Number of RWKV-4 blocks (time-mix + channel-mix).
        ffn_mult (`int`, defaults to 4):
            Channel-mix hidden width as a multiple of `d_hidden`.
        layer_norm_epsilon (`float`, defaults to 1e-5):
            Epsilon of every LayerNorm.
        value_head_dropout (`float`, defaults to 0.0):
            Dropout before the scalar value head of [`TinyRWKVForCausalLMWithValueHead`].
        max_position_embeddings (`int`, defaults to 8192):
            Not a limit of the model: RWKV has no positions and its state is O(1) in length. It is
            the context length tools budget for (TRL's multi-turn tool loop truncates to it).
        bos_token_id / eos_token_id / pad_token_id (`int`):
            Special token ids; the Rusty tokenizer puts `<|endoftext|>` at 0 and `<|pad|>` at 1.
        tie_word_embeddings (`bool`, defaults to `False`):
            The head is untied: the embedding is narrower than the residual stream.
    """

    model_type = "tiny_rwkv"
    keys_to_ignore_at_inference = ["state"]
    # Names the rest of the ecosystem (TRL, peft, accelerate, bitsandbytes) looks up.
    attribute_map = {"hidden_size": "d_hidden", "num_hidden_layers": "n_layers"}

    def __init__(
        self,
        vocab_size: int = 24000,
        d_embed: int = 256,
        d_hidden: int = 512,
        n_layers: int = 4,
        ffn_mult: int = 4,
        layer_norm_epsilon: float = 1e-5,
        value_head_dropout: float = 0.0,
        max_position_embeddings: int = 8192,
        bos_token_id: int = 0,
        eos_token_id: int | list[int] = 0,
        pad_token_id: int = 1,
        tie_word_embeddings: bool = False,
        use_cache: bool = True,
        **kwargs,
    ):
        if tie_word_embeddings:
            raise ValueError(
                "TinyRWKV has an untied head (d_embed != d_hidden); set tie_word_embeddings=False."
            )
        self.vocab_size = vocab_size
        self.d_embed = d_embed
        self.d_hidden = d_hidden
        self.n_layers = n_layers
        self.ffn_mult = ffn_mult
        self.layer_norm_epsilon = layer_norm_epsilon
        self.value_head_dropout = value_head_dropout
        self.max_position_embeddings = max_position_embeddings
        self.use_cache = use_cache
        super().__init__(
            bos_token_id=bos_token_id,
            eos_token_id=eos_token_id,
            pad_token_id=pad_token_id,
            tie_word_embeddings=tie_word_embeddings,
            **kwargs,
        )

    @property
    def d_ffn(self) -> int:
        """Hidden width of the channel-mix (`ffn_mult * d_hidden`)."""
        return self.ffn_mult * self.d_hidden


__all__ = ["TinyRWKVConfig"]
