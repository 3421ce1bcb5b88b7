"""Tests for rusty_hf.protocol.constrained and .automaton: decoding that can only emit valid actions."""

import pytest
import torch
from tokenizers import Tokenizer, models
from transformers import LogitsProcessorList, PreTrainedTokenizerFast

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.protocol import MAX_FIELD_CHARS, Action, ProtocolLogitsProcessor, parse_action
from rusty_hf.protocol.automaton import build_automaton
from rusty_hf.protocol.vocabulary import token_table
from tests.conftest import randomise_zero_init, tiny_config

EOS_IDS = [0, 5]  # <|endoftext|>, <|end|>
PAD_ID = 1


def _accepts(text: str) -> bool:
    automaton = build_automaton()
    state = automaton.start
    for byte in text.encode():
        state = automaton.table[state][byte]
    return state in automaton.accepting


def _drive(processor, batch, steps, prompt_length=3, seed=0, vocab=None):
    """Sample from random logits through the processor, the way generate does; return generated ids."""
    gen = torch.Generator().manual_seed(seed)
    vocab = vocab or len(processor.table.token_bytes)
    ids = torch.full((batch, prompt_length), 4)
    for _ in range(steps):
        scores = processor(ids, torch.randn(batch, vocab, generator=gen) * 4)
        ids = torch.cat([ids, torch.multinomial(scores.softmax(-1), 1, generator=gen)], dim=1)
    return ids[:, prompt_length:]


def _decode(tokenizer, row) -> str:
    return tokenizer.decode(row, skip_special_tokens=True)


@pytest.mark.parametrize(
    "action",
    [
        Action("MSG", message='say "hi"\n\té\\ \u2028'),
        Action("CMD", command="ls"),
        Action("EDIT", path="a", content=""),
    ],
)
def test_automaton_accepts_canonical_json(action):
    assert _accepts(action.to_json()) and _accepts(" " + action.to_json().replace(": ", ":"))


@pytest.mark.parametrize(
    "text",
    [
        '{"action": "CMD", "command": ""}',  # empty command
        '{"action": "MSG", "message": "\\ud83d"}',  # surrogate escape
        '{"action": "MSG", "message": "a"} ',  # nothing after the brace
        '{"action": "MSG", "message": "a\nb"}',  # raw control character
        '{"action": "MSG", "message": "a", "message": "b"}',
        '   {"action": "MSG", "message": "a"}',  # more than two whitespace bytes
    ],
)
def test_automaton_rejects(text):
    assert not _accepts(text)


def test_token_bytes_match_the_tokenizer(tiny_tokenizer):
    table = token_table(tiny_tokenizer)
    assert token_table(tiny_tokenizer) is table  # cached per tokenizer
    for token_id, data in enumerate(table.token_bytes):
        if data is not None:
            assert data.decode("utf-8", "replace") == tiny_tokenizer.decode([token_id])


def test_random_logits_always_give_valid_actions(tiny_tokenizer):
    processor = ProtocolLogitsProcessor(tiny_tokenizer, max_new_tokens=40)
    for seed in range(2):
        generated = _drive(processor, batch=64, steps=40, seed=seed)
        for row in generated:
            parse_action(_decode(tiny_tokenizer, row))


def test_eos_only_after_a_complete_action(tiny_tokenizer):
    processor = ProtocolLogitsProcessor(tiny_tokenizer)
    generated = _drive(processor, batch=32, steps=60, seed=1)
    for row in generated.tolist():
        for i, token_id in enumerate(row):
            if token_id in EOS_IDS:
                parse_action(_decode(tiny_tokenizer, row[:i]))
                assert set(row[i + 1 :]) <= {PAD_ID, *EOS_IDS}  # a finished row stays finished
                break


def test_complete_action_forces_eos(tiny_tokenizer):
    prompt = torch.full((1, 2), 4)
    action = tiny_tokenizer.encode('{"action": "CMD", "command": "ls"}', add_special_tokens=False)
    processor = ProtocolLogitsProcessor(tiny_tokenizer, prompt_length=2)
    scores = processor(torch.cat([prompt, torch.tensor([action])], 1), torch.zeros(1, 288))
    assert torch.isfinite(scores[0]).nonzero().flatten().tolist() == EOS_IDS


def test_length_limit_closes_the_string(tiny_tokenizer, monkeypatch):
    for field in MAX_FIELD_CHARS:
        monkeypatch.setitem(MAX_FIELD_CHARS, field, 3)
    processor = ProtocolLogitsProcessor(tiny_tokenizer)  # no budget: only the limits end the strings
    generated = _drive(processor, batch=32, steps=100, seed=2)
    for row in generated:
        action = parse_action(_decode(tiny_tokenizer, row))
        assert all(len(value) <= 3 for value in action.to_dict().values() if value not in ("MSG", "CMD", "EDIT"))


def test_length_limit_leaves_room_for_escapes(tiny_tokenizer, monkeypatch):
    for field in MAX_FIELD_CHARS:
        monkeypatch.setitem(MAX_FIELD_CHARS, field, 4)
    backslash, u = (tiny_tokenizer.convert_tokens_to_ids(t) for t in ("\\", "u"))
    processor = ProtocolLogitsProcessor(tiny_tokenizer)
    gen = torch.Generator().manual_seed(4)
    ids = torch.full((32, 1), 4)
    for _ in range(80):  # push hard towards "\\u" escapes, which need 6 bytes
        raw = torch.randn(32, 288, generator=gen)
        raw[:, [backslash, u]] += 6
        scores = processor(ids, raw)
        ids = torch.cat([ids, torch.multinomial(scores.softmax(-1), 1, generator=gen)], dim=1)
    texts = [_decode(tiny_tokenizer, row) for row in ids[:, 1:]]
    assert any("\\" in text for text in texts)
    for text in texts:
        parse_action(text)


def test_prompt_length_argument(tiny_tokenizer):
    processor = ProtocolLogitsProcessor(tiny_tokenizer, prompt_length=5, max_new_tokens=30)
    ids = torch.full((2, 5), 4)
    first = processor(ids, torch.zeros(2, 288))
    # The same input seen fresh, with prompt_length: only the generated part counts.
    assert torch.equal(first, ProtocolLogitsProcessor(tiny_tokenizer)(ids, torch.zeros(2, 288)))
    assert torch.isinf(first[:, EOS_IDS]).all()


def _model(tokenizer):
    torch.manual_seed(0)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tokenizer)))).eval()


def test_random_model_batch_with_left_padding(tiny_tokenizer):
    model = _model(tiny_tokenizer)
    tiny_tokenizer.padding_side = "left"
    prompts = [
        tiny_tokenizer.apply_chat_template(
            [{"role": "system", "content": "Act."}, {"role": "user", "content": text}],
            add_generation_prompt=True,
            tokenize=False,
        )
        for text in ["ls", "write a function that adds two numbers", "hi", "run the tests"]
    ]
    inputs = tiny_tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    assert (inputs["attention_mask"] == 0).any()  # the batch really is left-padded
    processor = ProtocolLogitsProcessor(tiny_tokenizer, max_new_tokens=24)
    torch.manual_seed(0)
    out = model.generate(
        **inputs, max_new_tokens=24, do_sample=True, logits_processor=LogitsProcessorList([processor]),
        eos_token_id=EOS_IDS, pad_token_id=PAD_ID, use_cache=True,
    )
    for row in out[:, inputs["input_ids"].shape[1] :]:
        parse_action(_decode(tiny_tokenizer, row))


def test_one_processor_serves_successive_generations(tiny_tokenizer):
    processor = ProtocolLogitsProcessor(tiny_tokenizer, max_new_tokens=30)
    for seed, prompt_length in [(0, 3), (1, 7), (2, 3)]:
        for row in _drive(processor, batch=8, steps=30, prompt_length=prompt_length, seed=seed):
            parse_action(_decode(tiny_tokenizer, row))


def test_reordered_rows_are_replayed(tiny_tokenizer):
    # Beam search hands rows back in a new order between steps; each row's state must follow its tokens.
    processor = ProtocolLogitsProcessor(tiny_tokenizer, max_new_tokens=40)
    gen = torch.Generator().manual_seed(3)
    ids = torch.full((6, 3), 4)
    for _ in range(40):
        scores = processor(ids, torch.randn(6, 288, generator=gen) * 4)
        ids = torch.cat([ids, torch.multinomial(scores.softmax(-1), 1, generator=gen)], dim=1)
        ids = ids[torch.randperm(6, generator=gen)]
    for row in ids[:, 3:]:
        parse_action(_decode(tiny_tokenizer, row))


def test_too_small_model_vocab_is_a_clear_error(tiny_tokenizer):
    with pytest.raises(ValueError, match="tokenizer has 288"):
        ProtocolLogitsProcessor(tiny_tokenizer)(torch.full((1, 2), 4), torch.zeros(1, 99))


def test_non_byte_level_tokenizer_is_a_clear_error():
    backend = Tokenizer(models.WordLevel({"<|endoftext|>": 0, "∑": 1, "<unk>": 2}, unk_token="<unk>"))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<|endoftext|>", unk_token="<unk>")
    with pytest.raises(ValueError, match="byte-level"):
        token_table(tokenizer)


def _scripted_generation(tokenizer, text, max_phrase_repeats, steps=96):
    """Greedy decoding of scores that want ``text`` (then whatever the processor leaves), token by token."""
    target = tokenizer.encode(text, add_special_tokens=False)
    processor = ProtocolLogitsProcessor(tokenizer, max_new_tokens=steps, max_phrase_repeats=max_phrase_repeats)
    gen = torch.Generator().manual_seed(0)
    vocab = len(processor.table.token_bytes)
    ids = torch.full((1, 3), 4)
    for step in range(steps):
        scores = torch.rand(1, vocab, generator=gen)
        scores[0, target[min(step, len(target) - 1)]] += 10.0
        scores = processor(ids, scores)
        ids = torch.cat([ids, scores.argmax(-1, keepdim=True)], dim=1)
        if ids[0, -1].item() in EOS_IDS:
            break
    return parse_action(_decode(tokenizer, ids[0, 3:].tolist()))


def test_a_message_repeats_no_phrase_more_than_the_bound(tiny_tokenizer):
    """The model the issue saw: a message looping on "app the". Bounded, no three-word phrase comes a fourth
    time, and the reply is still one valid action."""
    from rusty_hf.evaluation.conversations import repeated_phrase

    looping = '{"action": "MSG", "message": "It prints:' + " app the" * 30 + '"}'
    assert repeated_phrase(_scripted_generation(tiny_tokenizer, looping, None).message)[1] > 3
    action = _scripted_generation(tiny_tokenizer, looping, 3)
    assert action.action == "MSG" and action.message.startswith("It prints: app the")
    assert repeated_phrase(action.message)[1] <= 3


def test_a_loop_without_spaces_around_a_quote_is_bounded_too(tiny_tokenizer):
    """rusty-terminal wrote `sed: notes"sed: notes"...` eight times (qs58): its words end at the escaped quote,
    which the bound split on spaces alone never saw as a phrase. Cut where a token ends a word, it is bounded."""
    from rusty_hf.evaluation.conversations import repeated_phrase

    looping = '{"action": "MSG", "message": "sed: notes' + '\\"sed: notes' * 12 + '"}'
    assert repeated_phrase(_scripted_generation(tiny_tokenizer, looping, None).message)[1] > 3
    action = _scripted_generation(tiny_tokenizer, looping, 3)
    assert action.action == "MSG" and action.message.startswith('sed: notes"sed: notes')
    assert repeated_phrase(action.message)[1] <= 3


def test_a_budget_that_closes_the_message_never_writes_a_phrase_a_time_too_many(tiny_tokenizer):
    """qs84: four conversation replies held a phrase 4 times. The bound refused the word end after the phrase's last
    word, so the loop wrote that word whole and waited; the budget then closed the string, which ended the word. Now
    the word is never written whole there, whatever step the budget closes the message at."""
    from rusty_hf.evaluation.conversations import repeated_phrase

    looping = '{"action": "MSG", "message": "It shows' + " the test output" * 8 + '"}'
    for steps in range(70, 100):
        action = _scripted_generation(tiny_tokenizer, looping, 3, steps=steps)
        assert action.action == "MSG" and repeated_phrase(action.message)[1] <= 3, (steps, action.message)


def test_the_repeat_bound_folds_case_beyond_ascii(tiny_tokenizer):
    """Actions keep non-ASCII text as it is: "Été le test" and "été le test" are one phrase, as the suite counts."""
    from rusty_hf.evaluation.conversations import repeated_phrase

    looping = '{"action": "MSG", "message": "Été le test' + " été le test" * 6 + '"}'
    assert repeated_phrase(_scripted_generation(tiny_tokenizer, looping, None).message)[1] > 3
    action = _scripted_generation(tiny_tokenizer, looping, 3)
    assert action.action == "MSG" and action.message.startswith("Été le test été le test")
    assert repeated_phrase(action.message)[1] <= 3


def test_a_locked_copy_gives_way_to_the_repeat_bound(tiny_tokenizer, monkeypatch):
    """qs85: a closing copied the same output line six times: each copy, once started, was locked to its
    continuation, and where every locked token was refused the bound gave way. Now the lock gives way instead: the
    row gets the grammar's tokens less the refused ones."""
    from rusty_hf.protocol.copying import CopyBias

    text = '{"action": "MSG", "message": "' + "the test output " * 3 + "the test outpu"
    plain = ProtocolLogitsProcessor(tiny_tokenizer, prompt_length=2, max_new_tokens=256)
    byte_id = {data: i for i, data in enumerate(plain.table.token_bytes) if data and len(data) == 1}
    ids = torch.tensor([[4, 4] + [byte_id[bytes([b])] for b in text.encode()]])  # byte by byte: no prefix space
    grammar = torch.isfinite(plain(ids, torch.zeros(1, 288)))[0]
    refused = ProtocolLogitsProcessor(tiny_tokenizer, max_phrase_repeats=3)._repeating_tokens(text.encode())
    assert refused and grammar[refused].all()  # the tokens that write "output" whole a fourth time
    monkeypatch.setattr(CopyBias, "field_bonuses", lambda self, *a, **k: ({}, refused, list(range(288))))
    processor = ProtocolLogitsProcessor(tiny_tokenizer, prompt_length=2, max_new_tokens=256, copy_names=[["output"]],
                                        max_phrase_repeats=3)  # fmt: skip
    allowed = torch.isfinite(processor(ids, torch.zeros(1, 288)))[0]
    expected = grammar.clone()
    expected[refused] = False
    assert torch.equal(allowed, expected)


def test_the_repeat_bound_counts_words_not_tokens(tiny_tokenizer):
    """A list of names shares tokens (".py,") but repeats no phrase: nothing is refused. A command is never
    bounded, even where its words repeat."""
    files = '{"action": "MSG", "message": "Files: a.py, b.py, c.py, d.py, e.py, f.py, g.py."}'
    assert _scripted_generation(tiny_tokenizer, files, 1).message == "Files: a.py, b.py, c.py, d.py, e.py, f.py, g.py."
    command = '{"action": "CMD", "command": "echo a b c; echo a b c; echo a b c; echo a b c"}'
    assert _scripted_generation(tiny_tokenizer, command, 1).command == "echo a b c; echo a b c; echo a b c; echo a b c"


def test_a_copy_lock_the_grammar_cannot_continue_falls_back_to_the_grammar(tiny_tokenizer, monkeypatch):
    """The copy bias locks a half-copied name to its continuation; when the budget must close the string at that
    very step, no locked token is allowed. The row then gets the grammar's mask alone, not every score -inf
    (sampling raised on such a row in a GRPO rollout; greedy search would have taken token 0)."""
    from rusty_hf.protocol.copying import CopyBias

    prompt = torch.full((2, 2), 4)
    opened = tiny_tokenizer.encode('{"action": "CMD", "command": "ls', add_special_tokens=False)
    ids = torch.cat([prompt, torch.tensor([opened, opened])], 1)
    plain = ProtocolLogitsProcessor(tiny_tokenizer, prompt_length=2, max_new_tokens=len(opened) + 2)
    grammar = torch.isfinite(plain(ids, torch.zeros(2, 288)))
    assert grammar[0].any() and not grammar[0].all()
    kept = [t for t in range(288) if not grammar[0, t]][:3]  # a lock that keeps only tokens the grammar refuses
    monkeypatch.setattr(CopyBias, "field_bonuses", lambda self, *a, **k: ({}, kept, list(range(288))))
    processor = ProtocolLogitsProcessor(tiny_tokenizer, prompt_length=2, max_new_tokens=len(opened) + 2,
                                        copy_names=[["lsblk"], ["lsblk"]])  # fmt: skip
    scores = processor(ids, torch.zeros(2, 288))
    assert torch.equal(torch.isfinite(scores), grammar)
