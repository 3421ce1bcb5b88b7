"""Rusty's tokenizer: a 24,000-token byte-level BPE with chat markers and a chat template.

Build it once (about half a minute on 2 CPU cores with the default corpus) and load it anywhere::

    python recipes/build_tokenizer.py --output_dir outputs/tokenizer

    from rusty_hf.tokenizer import load_tokenizer, check_tokenizer, generation_eos_ids
    tokenizer = load_tokenizer("outputs/tokenizer")        # or AutoTokenizer.from_pretrained(...)
    check_tokenizer(tokenizer, vocab_size=model.config.vocab_size)
    model.generation_config.eos_token_id = generation_eos_ids(tokenizer)

What the saved folder holds (a plain `PreTrainedTokenizerFast`, no remote code):

- a byte-level BPE (`tokenizers`): ByteLevel pre-tokenizer with ``add_prefix_space=True`` so a word at
  the start of a text and after a space share one token, the full 256-byte alphabet so any UTF-8
  round-trips, and a ByteLevel decoder. The price of the prefix space: text that does not start with a
  space decodes with one (``decode(encode("ls")) == " ls"``); callers that parse output should strip it.
- six special tokens with fixed ids 0..5 (`SPECIAL_TOKENS`): ``<|endoftext|>`` (eos and bos, the end of
  a sequence), ``<|pad|>``, the role markers ``<|system|>``, ``<|user|>``, ``<|assistant|>`` and
  ``<|end|>`` (end of turn).
- a Jinja chat template. A turn is ``<|role|>content<|end|>`` with nothing in between, a missing system
  message becomes `RUSTY_SYSTEM_PROMPT`, a finished conversation ends with ``<|endoftext|>`` and the
  generation prompt is ``<|assistant|>``. Assistant content *and its* ``<|end|>`` sit inside
  ``{% generation %}`` so TRL's ``assistant_only_loss=True`` trains the model to stop.

Generation must stop at either ``<|end|>`` (end of the assistant turn) or ``<|endoftext|>``: set
``generation_config.eos_token_id = generation_eos_ids(tokenizer)``; TRL's GRPO/SFT then add the
tokenizer's eos to that list themselves.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import PreTrainedTokenizerBase, PreTrainedTokenizerFast

from rusty_hf.errors import NoSuchPathError, UserError

EOS_TOKEN = "<|endoftext|>"
BOS_TOKEN = EOS_TOKEN
PAD_TOKEN = "<|pad|>"
SYSTEM_TOKEN = "<|system|>"
USER_TOKEN = "<|user|>"
ASSISTANT_TOKEN = "<|assistant|>"
END_OF_TURN_TOKEN = "<|end|>"
# A token's id is its position here; configs and checks rely on it.
SPECIAL_TOKENS: tuple[str, ...] = (EOS_TOKEN, PAD_TOKEN, SYSTEM_TOKEN, USER_TOKEN, ASSISTANT_TOKEN, END_OF_TURN_TOKEN)
SPECIAL_TOKEN_IDS: dict[str, int] = {token: index for index, token in enumerate(SPECIAL_TOKENS)}
EOS_TOKEN_ID = SPECIAL_TOKEN_IDS[EOS_TOKEN]
PAD_TOKEN_ID = SPECIAL_TOKEN_IDS[PAD_TOKEN]
END_OF_TURN_TOKEN_ID = SPECIAL_TOKEN_IDS[END_OF_TURN_TOKEN]

DEFAULT_VOCAB_SIZE = 24_000
_MIN_VOCAB_SIZE = 256 + len(SPECIAL_TOKENS)  # the byte alphabet plus the specials, before any merge
_BUILD_HINT = "build one with `python recipes/build_tokenizer.py --output_dir <folder>`"

# The persona every conversation starts with (the chat template's default system message). Short on
# purpose: Rusty learns the protocol and its manner from data, not from instructions, and a recurrent
# model reads a request best when little comes before it (a 115-token prompt describing the protocol
# cut held-out terminal success from 0.34 to 0.15 for the quickstart's model at the same budget).
RUSTY_SYSTEM_PROMPT = "You are Rusty, a blunt terminal assistant."


# A turn is <|role|>content<|end|> with no whitespace around the markers (every tag trims with `-`): the
# pre-tokenizer's prefix space then lands inside the turn it belongs to, the prompt rendered with
# add_generation_prompt is a token-exact prefix of the full conversation, and the assistant mask's offsets
# stay exact. The marker strings must match SPECIAL_TOKENS (tests/test_tokenizer.py renders every role).
_CHAT_TEMPLATE_SOURCE = """
{%- if messages and messages[0]['role'] == 'system' -%}
    {%- set system_message = messages[0]['content'] -%}
    {%- set turns = messages[1:] -%}
{%- else -%}
    {%- set system_message = __DEFAULT_SYSTEM__ -%}
    {%- set turns = messages -%}
{%- endif -%}
{{- '<|system|>' + system_message + '<|end|>' -}}
{%- for message in turns -%}
    {%- if message['role'] == 'user' -%}
        {{- '<|user|>' + message['content'] + '<|end|>' -}}
    {%- elif message['role'] == 'assistant' -%}
        {{- '<|assistant|>' -}}
        {%- generation -%}
            {{- message['content'] + '<|end|>' -}}
        {%- endgeneration -%}
    {%- else -%}
        {{- raise_exception("Rusty's chat template takes a leading 'system' message, then 'user' and "
                            + "'assistant' turns; got role '" + message['role'] + "'") -}}
    {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{- '<|assistant|>' -}}
{%- elif turns and turns[-1]['role'] == 'assistant' -%}
    {{- '<|endoftext|>' -}}
{%- endif -%}
"""


# json.dumps of a string is also a valid Jinja string literal (same escapes).
CHAT_TEMPLATE = _CHAT_TEMPLATE_SOURCE.replace("__DEFAULT_SYSTEM__", json.dumps(RUSTY_SYSTEM_PROMPT))


def _new_backend() -> Tokenizer:
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    backend.decoder = decoders.ByteLevel()
    # trim_offsets=False keeps the prefix space inside its token's offsets, so a token made of that space
    # alone is still covered by the character span of the assistant turn (the assistant mask).
    backend.post_processor = processors.ByteLevel(trim_offsets=False)
    return backend


def _wrap(backend: Tokenizer) -> PreTrainedTokenizerFast:
    return PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token=BOS_TOKEN,
        eos_token=EOS_TOKEN,
        pad_token=PAD_TOKEN,
        extra_special_tokens=list(SPECIAL_TOKENS[2:]),
        add_prefix_space=True,
        clean_up_tokenization_spaces=False,  # keep decode byte-exact
        chat_template=CHAT_TEMPLATE,
    )


def train_tokenizer(
    texts: Iterable[str],
    vocab_size: int = DEFAULT_VOCAB_SIZE,
    min_frequency: int = 2,
    show_progress: bool = True,
) -> PreTrainedTokenizerFast:
    """Train Rusty's byte-level BPE on ``texts`` and wrap it as a `PreTrainedTokenizerFast`.

    Args:
        texts: training documents (any iterable of strings; consumed once).
        vocab_size: final vocabulary size, special tokens and the 256 bytes included.
        min_frequency: a pair must occur this often to be merged.
        show_progress: show the `tokenizers` progress bar.

    Raises:
        ValueError: ``vocab_size`` leaves no room for merges, or the corpus was too small to learn
            ``vocab_size`` tokens (a short vocabulary would not fit a model built for ``vocab_size``).
    """
    if vocab_size <= _MIN_VOCAB_SIZE:
        raise UserError(
            f"vocab_size must exceed {_MIN_VOCAB_SIZE} (256 bytes + {len(SPECIAL_TOKENS)} special tokens), "
            f"got {vocab_size}"
        )
    backend = _new_backend()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        special_tokens=list(SPECIAL_TOKENS),  # first in the vocabulary: ids 0..5
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=show_progress,
    )
    backend.train_from_iterator(texts, trainer=trainer)
    learned = backend.get_vocab_size()
    if learned != vocab_size:
        raise UserError(
            f"the corpus only supports {learned} of the {vocab_size} requested tokens (min_frequency={min_frequency}); "
            "give it more text (raise --max_corpus_mb, add --datasets) or lower --vocab_size"
        )
    return _wrap(backend)


def load_tokenizer(path: str | os.PathLike) -> PreTrainedTokenizerFast:
    """Load a tokenizer folder written by `train_tokenizer` + ``save_pretrained`` and check it is Rusty's.

    Raises:
        FileNotFoundError: the folder or its ``tokenizer.json`` is missing.
        ValueError: the folder holds some other tokenizer (see `check_tokenizer`).
    """
    folder = Path(path)
    if not (folder / "tokenizer.json").is_file():
        what = "has no tokenizer.json" if folder.is_dir() else "does not exist"
        raise NoSuchPathError(
            f"tokenizer folder {str(folder)!r} {what}. Fix: point tokenizer_name_or_path at a folder with a tokenizer.json "
            f"(a model folder a recipe saved, or a tokenizer folder: {_BUILD_HINT})"
        )
    # The fast class directly: AutoTokenizer would read a model folder's config.json first, and a process
    # that has not registered tiny_rwkv would stop at transformers' "run the custom code? [y/N]" prompt.
    tokenizer = PreTrainedTokenizerFast.from_pretrained(folder)
    try:
        check_tokenizer(tokenizer)
    except ValueError as err:
        raise UserError(f"{folder} is not a Rusty tokenizer: {err}") from None
    return tokenizer


def check_tokenizer(tokenizer: PreTrainedTokenizerBase, vocab_size: int | None = None) -> None:
    """Raise a clear ValueError unless ``tokenizer`` is Rusty's and fits a model of ``vocab_size`` tokens.

    Checked: the six special tokens are single tokens with ids 0..5, eos/pad are set to them, the chat
    template carries generation markers, the prefix space is on, and ``len(tokenizer) == vocab_size``
    (when given; a model's embedding rows must match the ids the tokenizer emits).
    """
    if not isinstance(tokenizer, PreTrainedTokenizerBase):
        raise UserError(f"expected a transformers tokenizer, got {type(tokenizer).__name__}; {_BUILD_HINT}")
    vocab = tokenizer.get_vocab()
    wrong = [f"{t} (id {vocab.get(t)}, want {want})" for t, want in SPECIAL_TOKEN_IDS.items() if vocab.get(t) != want]
    if wrong:
        raise UserError(f"special tokens missing or at the wrong id: {', '.join(wrong)}; {_BUILD_HINT}")
    if tokenizer.eos_token != EOS_TOKEN or tokenizer.pad_token != PAD_TOKEN:
        raise UserError(
            f"eos/pad are {tokenizer.eos_token!r}/{tokenizer.pad_token!r}, want {EOS_TOKEN!r}/{PAD_TOKEN!r}; "
            "reload the folder without overriding eos_token/pad_token"
        )
    if "generation" not in (tokenizer.chat_template or ""):
        raise UserError(f"the chat template is missing or has no {{% generation %}} markers; {_BUILD_HINT}")
    if tokenizer.encode("def", add_special_tokens=False) != tokenizer.encode(" def", add_special_tokens=False):
        raise UserError(f"the pre-tokenizer does not add a prefix space; {_BUILD_HINT}")
    if vocab_size is not None and len(tokenizer) != vocab_size:
        raise UserError(
            f"tokenizer has {len(tokenizer)} tokens but the model expects vocab_size={vocab_size}; use the tokenizer "
            f"the model was trained with, or rebuild one with --vocab_size {vocab_size}"
        )


def generation_eos_ids(tokenizer: PreTrainedTokenizerBase) -> list[int]:
    """Token ids that end a generation: ``<|end|>`` (end of turn) first, then ``<|endoftext|>``.

    Put the list in ``model.generation_config.eos_token_id``; ``generate`` stops at any of them.
    """
    ids = [tokenizer.convert_tokens_to_ids(END_OF_TURN_TOKEN), tokenizer.eos_token_id]
    if any(i is None or i == tokenizer.unk_token_id for i in ids):
        raise UserError(f"tokenizer lacks {END_OF_TURN_TOKEN!r} or an eos token; {_BUILD_HINT}")
    return list(dict.fromkeys(ids))
