"""Script-argument dataclasses shared by the recipes (parsed by TRL's `TrlParser`).

A recipe YAML mixes three groups, exactly as alignment-handbook / open-r1 do:

    # Model arguments        -> trl.ModelConfig (model_name_or_path, dtype, use_peft, lora_*)
    # Data / model-size args -> RustyScriptArguments (below)
    # Trainer config         -> trl.SFTConfig / GRPOConfig / ...

    parser = TrlParser((RustyScriptArguments, SFTConfig, ModelConfig))
    script_args, training_args, model_args = parser.parse_args_and_config()
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trl import ScriptArguments


@dataclass
class RustyScriptArguments(ScriptArguments):
    """Data and fresh-model arguments. A `model_name_or_path` in ModelConfig overrides the sizes."""

    tokenizer_name_or_path: str = field(
        default="outputs/tokenizer",
        metadata={"help": "Folder (or Hub id) of the Rusty tokenizer; build it with recipes/build_tokenizer.py."},
    )
    num_dialogs: int = field(
        default=2048, metadata={"help": "Synthetic protocol dialogs to train on when no dataset_name is given."}
    )
    dialog_seed: int = field(default=0, metadata={"help": "Seed of the synthetic dialog generator."})
    d_embed: int = field(default=256, metadata={"help": "Token-embedding width of a fresh model."})
    d_hidden: int = field(default=512, metadata={"help": "Residual width of a fresh model."})
    n_layers: int = field(default=4, metadata={"help": "RWKV-4 blocks of a fresh model."})
    ffn_mult: int = field(default=4, metadata={"help": "Channel-mix width multiple of a fresh model."})
    init_seed: int = field(default=0, metadata={"help": "Seed for a fresh model's initialisation."})

    def __post_init__(self):
        for name in ("num_dialogs", "d_embed", "d_hidden", "n_layers", "ffn_mult"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.d_hidden % 32:
            raise ValueError(f"d_hidden must be a multiple of 32 (bitsandbytes 4-bit), got {self.d_hidden}")
