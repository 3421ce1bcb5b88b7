"""The recipes' script arguments: dataclasses shared by the recipes (parsed by TRL's `TrlParser`).

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
    num_terminal: int = field(
        default=0,
        metadata={"help": "SFT: terminal requests (rusty_hf.data.terminal: training phrasings and values, executed "
                  "references) in the mix; RL: terminal prompts next to the tasks (0 = none)."},
    )
    terminal_multi_turn_share: float = field(
        default=0.2, metadata={"help": "Share of the terminal rows that are multi-turn (a CMD, its output, a MSG)."}
    )
    terminal_closing_share: float = field(
        default=0.0,
        metadata={"help": "SFT: share of the single-turn CMD/EDIT terminal rows that go on with the action's result "
                  "and a closing MSG (\"Done.\"), so the model ends after a result instead of making up a second answer."},
    )
    terminal_session_share: float = field(
        default=0.0,
        metadata={"help": "SFT: sessions of 4-8 terminal requests in a row on one work dir (each answered to its closing "
                  "MSG before the next), as a share of num_terminal, beside the single requests."},
    )
    terminal_session_write_share: float = field(
        default=0.0,
        metadata={"help": "SFT: share of those sessions where an earlier turn changes the work dir too (append, replace, "
                  "create, delete), and the turns after it act on the work dir as it left it (run in the sandbox)."},
    )
    terminal_session_refer_share: float = field(
        default=0.0,
        metadata={"help": "SFT: share of the session turns after one that named a file that act on that file again and "
                  "name it as a user does in a conversation (\"it\", \"that file\")."},
    )
    terminal_session_missing_share: float = field(
        default=0.0,
        metadata={"help": "SFT: share of the session turns that read a named file that name one the work dir lacks; "
                  "the reference command fails and the turn closes with the failure (\"Failed: exit code 1.\")."},
    )
    terminal_closing_states_output: bool = field(
        default=False,
        metadata={"help": "SFT: a closing MSG after a command with a short output states it (\"It shows: README.md, "
                  "app.py.\") instead of \"Done.\" (closing rows and sessions); constrained decoding lets that message "
                  "hold only the output's lines (the SHOWN slot of rusty_hf.protocol.copying)."},
    )
    terminal_pointers: bool = field(
        default=False,
        metadata={"help": "SFT: each terminal request's spans marked and each action pointing at them instead of "
                  "spelling them; the model's decoders expand a pointer byte-exactly (rusty_hf.protocol.pointers). "
                  "Held-out new values 0.73 against 0.65, blind even, conversations 0.48 against 0.51 over two seeds "
                  "(catalogue_s67.json): off in the recipe."},
    )
    terminal_cache_dir: str = field(
        default="outputs/terminal_fixtures",
        metadata={"help": "Where the terminal fixtures (small git repositories) are built once and reused."},
    )
    share_prompt_state: bool = field(
        default=True,
        metadata={"help": "SFT with the loss on assistant turns only: run each batch's common prompt (the system "
                  "prompt) once and start every row from its state (rusty_hf.training.shared_prefix)."},
    )
    lean_step: bool = field(
        default=True,
        metadata={"help": "SFT: keep TRL's per-step metrics (entropy, token accuracy, tokens) on the device until a "
                  "log, so the step never waits for the GPU (rusty_hf.training.lean_sft); false: TRL's own step "
                  "(padding_free rows still take max_length per document)."},
    )
    task_repeats: int = field(
        default=4,
        metadata={"help": "SFT: times each training-split task (prompt -> EDIT with its solution) joins the mix; 0 = none."},
    )
    task_languages: list[str] = field(
        default_factory=lambda: ["python", "rust"],
        metadata={"help": "Task languages used for SFT task dialogs and RL prompts (python, rust)."},
    )
    tasks_dir: str | None = field(
        default=None, metadata={"help": "Task suite folder (tasks/<language>/<name>/); default: the repository's tasks/."}
    )
    d_embed: int = field(default=256, metadata={"help": "Token-embedding width of a fresh model."})
    d_hidden: int = field(default=512, metadata={"help": "Residual width of a fresh model."})
    n_layers: int = field(default=4, metadata={"help": "RWKV-4 blocks of a fresh model."})
    ffn_mult: int = field(default=4, metadata={"help": "Channel-mix width multiple of a fresh model."})
    init_seed: int = field(default=0, metadata={"help": "Seed for a fresh model's initialisation."})
    max_train_minutes: float | None = field(
        default=None,
        metadata={"help": "Wall-clock budget for training: max_steps (and the LR schedule) shrink to fit it, and "
                  "training stops before it runs out (rusty_hf.training.time_budget). None = no limit."},
    )
    save_prepared_to: str | None = field(
        default=None,
        metadata={"help": "Tokenize (and pack) the dataset as this run would, save it compactly to this folder and "
                  "exit without training; train from it later, offline (rusty_hf.training.prepared_data)."},
    )

    def __post_init__(self):
        if self.max_train_minutes is not None and not self.max_train_minutes > 0:
            raise ValueError(f"max_train_minutes must be > 0 (or None for no limit), got {self.max_train_minutes}")
        if self.task_repeats < 0:
            raise ValueError(f"task_repeats must be >= 0, got {self.task_repeats}")
        unknown = sorted(set(self.task_languages) - {"python", "rust"})
        if unknown or not self.task_languages:
            raise ValueError(f"task_languages must be a non-empty subset of ['python', 'rust'], got {self.task_languages}")
        for name in ("d_embed", "d_hidden", "n_layers", "ffn_mult"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for name in ("num_dialogs", "num_terminal"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not 0 <= self.terminal_multi_turn_share <= 1:
            raise ValueError(f"terminal_multi_turn_share must be in [0, 1], got {self.terminal_multi_turn_share}")
        if not 0 <= self.terminal_closing_share <= 1:
            raise ValueError(f"terminal_closing_share must be in [0, 1], got {self.terminal_closing_share}")
        for name in ("terminal_session_share", "terminal_session_write_share", "terminal_session_refer_share",
                     "terminal_session_missing_share"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        if self.d_hidden % 32:
            raise ValueError(f"d_hidden must be a multiple of 32 (bitsandbytes 4-bit), got {self.d_hidden}")



@dataclass
class PretrainScriptArguments(RustyScriptArguments):
    """Where recipes/pretrain.py reads raw code text: a DatasetDict on disk, or a Hub dataset via `dataset_name`."""

    dataset_path: str = field(
        default="data/code_corpus",
        metadata={"help": "DatasetDict saved with save_to_disk (splits train/validation, a text column); build it with "
                  "`python3 recipes/build_code_corpus.py --output_dir data/code_corpus`; or a folder prepared with "
                  "save_prepared_to (tokenized, packed). Ignored when dataset_name is set."},
    )
    dataset_test_split: str = field(
        default="validation", metadata={"help": "Held-out split for eval_loss and eval_bits_per_byte."}
    )
    max_train_texts: int | None = field(
        default=None, metadata={"help": "Train on a seeded random subset of this many documents; None = all."}
    )
    max_eval_texts: int | None = field(
        default=None, metadata={"help": "Evaluate on a seeded random subset of this many documents; None = all."}
    )
    max_train_tokens: int | None = field(
        default=None,
        metadata={"help": "Train on at most this many tokens of the train split (a seeded subset of documents, packed "
                  "rows cut to fit); with save_prepared_to, caps the prepared folder's size. None = all."},
    )

    def __post_init__(self):
        super().__post_init__()
        for name in ("max_train_texts", "max_eval_texts", "max_train_tokens"):
            if getattr(self, name) is not None and getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive or None, got {getattr(self, name)}")


@dataclass
class RLCallbacksConfig:
    """Which RL callbacks `rusty_hf.trainers.add_rl_callbacks` attaches (early stopping, adaptive KL, curriculum,
    entropy decay, CSV log, curve plot). The entropy fields are named ``entropy_coef_*`` so they never clash
    with a trainer config's own fields in one TrlParser."""

    early_stopping_patience: int | None = field(
        default=None,
        metadata={"help": "Reward checks without improvement before stopping; None turns early stopping off."},
    )
    early_stopping_min_improvement: float = field(
        default=0.0, metadata={"help": "How much a check's mean reward must beat the best to count as better."}
    )
    early_stopping_eval_every: int = field(default=10, metadata={"help": "Optimizer steps between reward checks."})
    adaptive_kl_target: float | None = field(
        default=None, metadata={"help": "Per-token KL to steer beta towards (needs beta > 0); None keeps beta fixed."}
    )
    adaptive_kl_horizon: int = field(default=10_000, metadata={"help": "Adaptive-KL horizon in optimizer steps."})
    curriculum: bool = field(default=False, metadata={"help": "Sample by task difficulty, easiest level first."})
    curriculum_threshold: float = field(
        default=0.5, metadata={"help": "Rolling pass rate that unlocks the next level."}
    )
    curriculum_window: int = field(default=8, metadata={"help": "Logged steps in the rolling pass rate."})
    curriculum_metric: str = field(
        default="execution/pass_rate", metadata={"help": "Logged key the curriculum follows."}
    )
    entropy_coef_decay: float | None = field(
        default=None, metadata={"help": "Per-step decay of entropy_coef (e.g. 0.999); None keeps it fixed."}
    )
    entropy_coef_floor: float = field(default=0.0, metadata={"help": "Lowest entropy_coef the decay reaches."})
    training_log: bool = field(default=True, metadata={"help": "Write rl_training.log (CSV) to output_dir."})
    plot_curves: bool = field(default=True, metadata={"help": "Save training_curves.png to output_dir at the end."})
    log_step_split: bool = field(
        default=False,
        metadata={"help": "GRPO/RLOO/PPO: log each step's time in generation, reward, scoring and update and rollouts/s "
                  "(rusty_hf.trainers.step_split; synchronizes CUDA at each boundary: for measuring)."},
    )

    def __post_init__(self):
        if self.early_stopping_patience is not None and self.early_stopping_patience < 1:
            raise ValueError(f"early_stopping_patience must be >= 1 or None, got {self.early_stopping_patience}")
        if self.adaptive_kl_target is not None and self.adaptive_kl_target <= 0:
            raise ValueError(f"adaptive_kl_target must be > 0 or None, got {self.adaptive_kl_target}")
        if self.entropy_coef_decay is not None and not 0 < self.entropy_coef_decay <= 1:
            raise ValueError(f"entropy_coef_decay must be in (0, 1] or None, got {self.entropy_coef_decay}")
        if self.curriculum_window < 1 or self.early_stopping_eval_every < 1 or self.adaptive_kl_horizon < 1:
            raise ValueError("curriculum_window, early_stopping_eval_every and adaptive_kl_horizon must be >= 1")


@dataclass
class RLScriptArguments(RustyScriptArguments, RLCallbacksConfig):
    """What the RL recipes (GRPO, RLOO, PPO) train on and how they score it.

    Prompts are the coding tasks of ``tasks/`` (`rusty_hf.data.tasks.load_tasks`) with the Rusty persona as
    the system prompt; rewards are chosen by name from `rusty_hf.rewards` and weighted by the trainer
    config's ``reward_weights``.
    """

    reward_funcs: list[str] = field(
        default_factory=lambda: ["execution", "protocol"],
        metadata={"help": "Reward functions by registry name (rusty_hf.rewards): execution, rust, teacher, protocol."},
    )
    task_split: str = field(default="train", metadata={"help": "Task split to train on: train or test."})
    max_difficulty: int | None = field(
        default=None, metadata={"help": "Drop tasks harder than this (1-5); the curriculum starts lower still."}
    )
    environment: str | None = field(
        default=None,
        metadata={"help": "Multi-turn environment for GRPO's environment_factory: 'coding' (rusty_hf.agent.env.CodingEnv)."},
    )
    terminal_words_share: float = field(
        default=0.0,
        metadata={"help": "RL: share of the num_terminal prompts drawn among the requests answered in words (an "
                  "acknowledgement, who Rusty is, an explanation, a refusal, a question back: "
                  "rusty_hf.data.terminal.dataset.answered_in_words); the rest as training_requests draws them."},
    )
    served_decoding: bool = field(
        default=True,
        metadata={"help": "GRPO/PPO: sample the terminal prompts (num_terminal) as rusty-terminal decodes a reply (the "
                  "action grammar, the copy bias, the repeat bound; rusty_hf.trainers.served_rollouts), the tasks as "
                  "TRL samples them; false: TRL's sampling for every prompt."},
    )

    def __post_init__(self):
        RustyScriptArguments.__post_init__(self)
        RLCallbacksConfig.__post_init__(self)
        if not self.reward_funcs and self.environment is None:
            raise ValueError("reward_funcs is empty; name at least one of the registry's rewards (e.g. [execution, protocol])")
        if self.task_split not in ("train", "test"):
            raise ValueError(f"task_split must be 'train' or 'test', got {self.task_split!r}")
        if self.max_difficulty is not None and not 1 <= self.max_difficulty <= 5:
            raise ValueError(f"max_difficulty must be in 1..5, got {self.max_difficulty}")
        if not 0.0 <= self.terminal_words_share <= 1.0:
            raise ValueError(f"terminal_words_share must be in [0, 1], got {self.terminal_words_share}")
        if self.environment not in (None, "coding"):
            raise ValueError(f"environment must be 'coding' or unset, got {self.environment!r}")
        from rusty_hf.rewards import REWARD_FACTORIES, REWARD_FUNCS

        unknown = [name for name in self.reward_funcs if name not in {*REWARD_FUNCS, *REWARD_FACTORIES}]
        if unknown:
            raise ValueError(f"unknown reward function(s) {unknown} in reward_funcs; valid names: "
                             f"{sorted({*REWARD_FUNCS, *REWARD_FACTORIES})}")


__all__ = ["PretrainScriptArguments", "RLCallbacksConfig", "RLScriptArguments", "RustyScriptArguments"]
