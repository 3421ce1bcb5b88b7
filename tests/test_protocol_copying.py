"""The copy bias: tokens that copy from the request (or a command's output) get a bonus inside strings."""

import pytest
import torch

from rusty_hf.protocol import ProtocolLogitsProcessor
from rusty_hf.protocol.copying import CopyBias, copy_sources, escape_for_json_string
from rusty_hf.protocol.vocabulary import token_table

REQUEST = "how many lines in harbor_notes.txt?"


@pytest.fixture(scope="module")
def tokenizer():
    """A small real BPE tokenizer that knows the request's words (with and without a leading space)."""
    from rusty_hf.tokenizer import train_tokenizer

    texts = [REQUEST, '{"action": "CMD", "command": "wc -l harbor_notes.txt"}', "lines harbor many how in"] * 50
    return train_tokenizer(texts, vocab_size=300, show_progress=False)


def _texts(bias: dict, table) -> set[bytes]:
    return {table.token_bytes[i] for i in bias}


def test_a_started_copy_is_continued(tokenizer):
    table = token_table(tokenizer)
    bias = CopyBias(table.token_bytes)
    bonuses = bias.bonuses(b"wc -l harb", [escape_for_json_string(REQUEST)])
    assert bonuses and all(b"or_notes.txt?".startswith(t) for t in _texts(bonuses, table))
    assert set(bonuses.values()) == {bias.bonus}


def test_after_a_separator_every_word_of_the_request_may_start(tokenizer):
    table = token_table(tokenizer)
    bias = CopyBias(table.token_bytes)
    starts = _texts(bias.bonuses(b"wc -l ", [escape_for_json_string(REQUEST)]), table)
    assert any(b"harbor_notes".startswith(t) for t in starts) and any(b"lines".startswith(t) for t in starts)
    assert all(not t.startswith(b" ") for t in starts)
    after_word = _texts(bias.bonuses(b"wc -l", [escape_for_json_string(REQUEST)]), table)
    assert after_word and all(t.startswith(b" ") for t in after_word)  # the separator comes with the word


def test_separators_and_quotes_get_no_bonus(tokenizer):
    table = token_table(tokenizer)
    bonuses = CopyBias(table.token_bytes).bonuses(b"cat harbor_notes", [escape_for_json_string(REQUEST)])
    assert all(any(chr(c).isalnum() for c in t) for t in _texts(bonuses, table))


def test_sources_are_matched_in_their_json_escaped_form():
    assert escape_for_json_string('say "hi"\n') == b'say \\"hi\\"\\n'


def test_copy_sources_are_the_last_request_and_the_outputs_after_it():
    messages = [{"role": "system", "content": "persona"}, {"role": "user", "content": "old"},
                {"role": "assistant", "content": "{}"}, {"role": "user", "content": "count py files"},
                {"role": "assistant", "content": "{}"}, {"role": "tool", "name": "CMD", "content": "3"}]  # fmt: skip
    assert copy_sources(messages) == ["count py files", "3"]
    assert copy_sources([{"role": "system", "content": "x"}]) == []


def test_the_processor_adds_the_bonus_only_inside_a_string(tokenizer):
    tok = tokenizer
    prompt = torch.tensor([[1, 2, 3]])
    processor = ProtocolLogitsProcessor(tok, copy_sources=[[REQUEST]], copy_bonus=5.0, copy_start_bonus=2.0)
    plain = ProtocolLogitsProcessor(tok)
    vocab = len(token_table(tok).token_bytes)
    scores = torch.zeros(1, vocab)
    opened = tok(' {"action": "CMD", "command": "wc -l', add_special_tokens=False)["input_ids"]
    before = processor(prompt, scores.clone())
    assert torch.equal(torch.isinf(before), torch.isinf(plain(prompt, scores.clone())))
    assert before[torch.isfinite(before)].max() == 0  # outside any string: no bonus
    ids = torch.cat([prompt, torch.tensor([opened])], dim=1)
    processor.reset()
    plain.reset()
    for end in range(prompt.shape[1], ids.shape[1] + 1):
        out, masked = processor(ids[:, :end], scores.clone()), plain(ids[:, :end], scores.clone())
    assert out.max() == 2.0  # a copy may start (" harbor", " lines", ...)
    assert torch.equal(torch.isinf(out), torch.isinf(masked))  # the grammar's mask is kept
