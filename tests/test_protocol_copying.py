"""The copy bias: inside an action's string, tokens that copy a name of the request get a bonus."""

import re

import pytest
import torch

from rusty_hf.protocol import ProtocolLogitsProcessor
from rusty_hf.protocol.copying import CopyBias, copy_candidates, copy_sources, escape_for_json_string
from rusty_hf.protocol.vocabulary import token_table

REQUEST = "how many lines in harbor_notes.txt?"
NAMES = [escape_for_json_string(n) for n in copy_candidates([REQUEST])]


@pytest.fixture(scope="module")
def tokenizer():
    """A small real BPE tokenizer that knows the request's words (with and without a leading space)."""
    from rusty_hf.tokenizer import train_tokenizer

    texts = [REQUEST, '{"action": "CMD", "command": "wc -l harbor_notes.txt"}', "lines harbor many how in"] * 50
    return train_tokenizer(texts, vocab_size=300, show_progress=False)


def _texts(bonuses: dict | tuple, table) -> set[bytes]:
    bonuses = bonuses[0] if isinstance(bonuses, tuple) else bonuses
    return {table.token_bytes[i] for i in bonuses}


def test_names_are_what_a_command_takes_not_the_sentence():
    assert copy_candidates([REQUEST]) == ["harbor_notes.txt"]
    assert set(copy_candidates(["replace 'sunny' with 'swift' in notes.txt"])) == {"sunny", "swift", "notes.txt"}
    assert set(copy_candidates(["where is BudgetArchive?"])) == {"BudgetArchive"}
    assert "run_x.py" in copy_candidates(["first 6 lines of scripts/run_x.py"])  # a path's parts
    assert "6" in copy_candidates(["first 6 lines of scripts/run_x.py"])


def test_a_plain_word_is_a_name_only_when_the_workspace_has_it():
    assert copy_candidates(["contents of bundle?"]) == []
    assert copy_candidates(["contents of bundle?"], ["bundle/__init__.py", "README.md"]) == ["bundle"]


def test_a_started_copy_is_continued(tokenizer):
    table = token_table(tokenizer)
    bias = CopyBias(table.token_bytes)
    bonuses, kept = bias.bonuses(b"wc -l harb", NAMES)
    assert kept and all(b"or_notes.txt".startswith(table.token_bytes[t]) for t in kept)  # locked: only the name goes on
    assert bonuses and all(b"or_notes.txt".startswith(t) for t in _texts(bonuses, table))
    assert set(bonuses.values()) == {bias.bonus}


def test_a_copy_starts_at_a_separator_or_brings_its_space(tokenizer):
    table = token_table(tokenizer)
    bias = CopyBias(table.token_bytes)
    after_space = _texts(bias.bonuses(b"wc -l ", NAMES), table)
    assert after_space and all(b"harbor_notes.txt".startswith(t) for t in after_space)
    after_word = _texts(bias.bonuses(b"wc -l", NAMES), table)
    assert after_word and all(b" harbor_notes.txt".startswith(t) for t in after_word)


def test_a_word_that_is_no_name_gets_nothing_and_a_done_copy_is_not_repeated(tokenizer):
    table = token_table(tokenizer)
    bias = CopyBias(table.token_bytes)
    assert bias.continuations(b"wc -l harbor_notes.txt", NAMES) == ([], 0)  # copied once: not again
    assert all(b"rbor_notes.txt".startswith(t) for t in _texts(bias.bonuses(b"cat ha", NAMES), table))
    # "li" starts no name: only a new word (with its space) may start a copy
    assert all(b" harbor_notes.txt".startswith(t) for t in _texts(bias.bonuses(b"cat li", NAMES), table))


def test_separators_and_quotes_get_no_bonus(tokenizer):
    table = token_table(tokenizer)
    bonuses, _ = CopyBias(table.token_bytes).bonuses(b"cat harbor_notes", NAMES)
    assert all(re.search(rb"[A-Za-z0-9_]", t) for t in _texts(bonuses, table))


def test_names_are_matched_in_their_json_escaped_form():
    assert escape_for_json_string('say "hi"\n') == b'say \\"hi\\"\\n'


def test_copy_sources_are_the_last_request_and_the_outputs_after_it():
    messages = [{"role": "system", "content": "persona"}, {"role": "user", "content": "old"},
                {"role": "assistant", "content": "{}"}, {"role": "user", "content": "count py files"},
                {"role": "assistant", "content": "{}"}, {"role": "tool", "name": "CMD", "content": "3"}]  # fmt: skip
    assert copy_sources(messages) == ["count py files", "3"]
    assert copy_sources([{"role": "system", "content": "x"}]) == []


def test_the_processor_adds_the_bonus_only_inside_a_string(tokenizer):
    prompt = torch.tensor([[1, 2, 3]])
    processor = ProtocolLogitsProcessor(tokenizer, copy_names=[["harbor_notes.txt"]], copy_bonus=5.0, copy_start_bonus=2.0)
    plain = ProtocolLogitsProcessor(tokenizer)
    scores = torch.zeros(1, len(token_table(tokenizer).token_bytes))
    before = processor(prompt, scores.clone())
    assert torch.equal(torch.isinf(before), torch.isinf(plain(prompt, scores.clone())))
    assert before[torch.isfinite(before)].max() == 0  # outside any string: no bonus
    opened = tokenizer(' {"action": "CMD", "command": "wc -l', add_special_tokens=False)["input_ids"]
    ids = torch.cat([prompt, torch.tensor([opened])], dim=1)
    processor.reset()
    plain.reset()
    for end in range(prompt.shape[1], ids.shape[1] + 1):
        out, masked = processor(ids[:, :end], scores.clone()), plain(ids[:, :end], scores.clone())
    assert out.max() == 2.0  # a copy of the name may start (" harbor")
    assert torch.equal(torch.isinf(out), torch.isinf(masked))  # the grammar's mask is kept


def test_a_batch_needs_one_list_of_names_per_row(tokenizer):
    processor = ProtocolLogitsProcessor(tokenizer, copy_names=[["a.txt"]])
    scores = torch.zeros(2, len(token_table(tokenizer).token_bytes))
    opened = tokenizer(' {"action": "CMD", "command": "', add_special_tokens=False)["input_ids"]
    ids = torch.tensor([opened, opened])
    with pytest.raises(ValueError, match="copy_names has 1 rows"):
        for end in range(1, ids.shape[1] + 1):
            processor(ids[:, :end], scores.clone())


def test_a_locked_copy_allows_only_the_name_or_a_separator(tokenizer):
    table = token_table(tokenizer)
    processor = ProtocolLogitsProcessor(tokenizer, copy_names=[["harbor_notes.txt"]])
    scores = torch.zeros(1, len(table.token_bytes))
    ids = torch.tensor([[1, 2, 3] + tokenizer(' {"action": "CMD", "command": "wc -l harb', add_special_tokens=False)["input_ids"]])
    for end in range(3, ids.shape[1] + 1):
        out = processor(ids[:, :end], scores.clone())
    allowed = {table.token_bytes[i] for i in torch.isfinite(out[0]).nonzero()[:, 0].tolist()}
    words = {t for t in allowed if t and re.match(rb"[A-Za-z0-9_]", t)}
    assert words and all(b"or_notes.txt".startswith(t) for t in words)
    assert b'"' in allowed and b" " in allowed  # the model may still end the word or the command here
    assert b"." not in allowed and b"/" not in allowed  # but not bend the name (data/bea + .csv)


def test_a_flag_letter_starts_no_copy():
    bias = CopyBias([b"c", b"alm", b" calm", b"ca"])
    assert bias.continuations(b"wc -c", [b"calm_cable.py"]) == ([b" calm_cable.py"], 0)  # a new word, not "c" + "alm"
    assert bias.continuations(b"wc -c ca", [b"calm_cable.py"]) == ([b"lm_cable.py"], 2)
