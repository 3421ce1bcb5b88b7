"""Tests for rusty_hf.tokenizer and recipes/build_tokenizer.py, on one small tokenizer (vocab 600).

The module fixture runs the real build recipe on a ~300 KB slice of the local corpus; every test then
checks one property of what it saved.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import AutoTokenizer, PreTrainedTokenizerFast

from rusty_hf.tokenizer import (
    ASSISTANT_TOKEN,
    END_OF_TURN_TOKEN,
    EOS_TOKEN,
    PAD_TOKEN,
    RUSTY_SYSTEM_PROMPT,
    SPECIAL_TOKENS,
    SYSTEM_TOKEN,
    USER_TOKEN,
    check_tokenizer,
    generation_eos_ids,
    load_tokenizer,
    train_tokenizer,
)

VOCAB = 600
REPO = Path(__file__).resolve().parents[1]
CMD = json.dumps({"action": "CMD", "command": "grep -rn \"TODO\" src"})
MSG = json.dumps({"action": "MSG", "message": "Done."})
DIALOG = [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "content": "find the TODOs"},
    {"role": "assistant", "content": CMD},
    {"role": "user", "content": "thanks"},
    {"role": "assistant", "content": MSG},
]


def _load_recipe(name: str):
    spec = importlib.util.spec_from_file_location(f"recipes_{name}", REPO / "recipes" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, PreTrainedTokenizerFast]:
    recipe = _load_recipe("build_tokenizer")
    out = tmp_path_factory.mktemp("tokenizer")
    args = recipe.TokenizerArguments(output_dir=str(out), vocab_size=VOCAB, max_corpus_mb=0.3, n_dialogs=200,
                                     heldout_mb=0.05)
    return out, recipe.main(args)


@pytest.fixture(scope="module")
def tok(built) -> PreTrainedTokenizerFast:
    return load_tokenizer(built[0])


def _ids(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


def test_prefix_space_text_round_trips_exactly(tok):
    assert tok.decode(_ids(tok, " def foo")) == " def foo"


def test_word_at_start_encodes_like_word_after_space(tok):
    assert _ids(tok, "def") == _ids(tok, " def")
    assert len(_ids(tok, " def")) == 1


@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=40).filter(lambda s: "<|" not in s))
def test_any_unicode_round_trips(tok, text):
    text = " " + text  # the prefix space is the one byte decode adds to text that lacks it
    assert tok.decode(_ids(tok, text)) == text


def test_every_byte_has_a_token(tok):
    vocab = tok.get_vocab()
    assert all(symbol in vocab for symbol in pre_tokenizers.ByteLevel.alphabet())


def test_special_tokens_have_fixed_ids_and_stay_single_tokens(tok):
    for expected_id, token in enumerate(SPECIAL_TOKENS):
        assert _ids(tok, token) == [expected_id]
    assert (tok.eos_token, tok.bos_token, tok.pad_token) == (EOS_TOKEN, EOS_TOKEN, PAD_TOKEN)


def test_chat_template_renders_system_user_and_assistant(tok):
    rendered = tok.apply_chat_template(DIALOG[:3], tokenize=False)
    assert rendered == (f"{SYSTEM_TOKEN}Be terse.{END_OF_TURN_TOKEN}{USER_TOKEN}find the TODOs{END_OF_TURN_TOKEN}"
                        f"{ASSISTANT_TOKEN}{CMD}{END_OF_TURN_TOKEN}{EOS_TOKEN}")


def test_missing_system_message_becomes_rusty_persona(tok):
    rendered = tok.apply_chat_template(DIALOG[1:2], tokenize=False)
    assert rendered.startswith(f"{SYSTEM_TOKEN}{RUSTY_SYSTEM_PROMPT}{END_OF_TURN_TOKEN}{USER_TOKEN}")


def test_generation_prompt_ends_with_assistant_marker_and_prefixes_the_reply(tok):
    prompt = tok.apply_chat_template(DIALOG[:2], tokenize=True, add_generation_prompt=True, return_dict=True)
    full = tok.apply_chat_template(DIALOG[:3], tokenize=True, return_dict=True)
    assert tok.convert_ids_to_tokens(prompt["input_ids"][-1]) == ASSISTANT_TOKEN
    assert full["input_ids"][: len(prompt["input_ids"])] == prompt["input_ids"]


def test_assistant_mask_covers_exactly_the_assistant_turns(tok):
    out = tok.apply_chat_template(DIALOG, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
    runs, current = [], []
    for token_id, masked in zip(out["input_ids"], out["assistant_masks"]):
        if masked:
            current.append(token_id)
        elif current:
            runs.append(current)
            current = []
    runs += [current] if current else []
    # The leading space is the pre-tokenizer's prefix space, which belongs to the reply's first token.
    assert [tok.decode(run) for run in runs] == [f" {CMD}{END_OF_TURN_TOKEN}", f" {MSG}{END_OF_TURN_TOKEN}"]


def test_trl_finds_the_end_of_turn_token_inside_the_loss_mask(tok):
    from trl.chat_template_utils import has_generation_markers, is_chat_template_stop_token_trained

    assert has_generation_markers(tok.chat_template) and is_chat_template_stop_token_trained(tok)


def test_unknown_role_is_a_clear_template_error(tok):
    with pytest.raises(Exception, match="got role 'tool'"):
        tok.apply_chat_template([{"role": "tool", "content": "ok"}], tokenize=False)


def test_autotokenizer_reload_encodes_identically(built):
    folder, trained = built
    reloaded = AutoTokenizer.from_pretrained(folder)
    texts = [" def foo(x):\n    return x", "fn main() {}", "日本語 🦀", f"{USER_TOKEN}hi{END_OF_TURN_TOKEN}"]
    assert reloaded.add_prefix_space is True
    assert [_ids(reloaded, t) for t in texts] == [_ids(trained, t) for t in texts]
    assert reloaded.apply_chat_template(DIALOG, tokenize=True) == trained.apply_chat_template(DIALOG, tokenize=True)


def test_load_tokenizer_on_missing_folder_names_the_recipe(tmp_path):
    with pytest.raises(FileNotFoundError, match="recipes/build_tokenizer.py"):
        load_tokenizer(tmp_path / "nope")


def test_load_tokenizer_rejects_a_foreign_tokenizer(tmp_path):
    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel()
    backend.train_from_iterator(["some text"] * 5, trainers.BpeTrainer(vocab_size=300, show_progress=False))
    PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="</s>").save_pretrained(tmp_path)
    with pytest.raises(ValueError, match="not a Rusty tokenizer.*recipes/build_tokenizer.py"):
        load_tokenizer(tmp_path)


def test_check_tokenizer_rejects_wrong_vocab_size(tok):
    check_tokenizer(tok, vocab_size=VOCAB)
    with pytest.raises(ValueError, match="vocab_size=24000"):
        check_tokenizer(tok, vocab_size=24000)


def test_generation_stops_at_end_of_turn_then_eos(tok):
    assert generation_eos_ids(tok) == [SPECIAL_TOKENS.index(END_OF_TURN_TOKEN), SPECIAL_TOKENS.index(EOS_TOKEN)]


def test_train_tokenizer_refuses_a_corpus_too_small_for_the_vocab():
    with pytest.raises(ValueError, match="lower --vocab_size"):
        train_tokenizer(["tiny corpus"], vocab_size=1000, show_progress=False)
