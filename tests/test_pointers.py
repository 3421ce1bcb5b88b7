"""Copy pointers (`rusty_hf.protocol.pointers`): requests marked, actions pointing into them, spans forced whole."""

import json

import pytest
import torch

from rusty_hf.protocol import ProtocolLogitsProcessor, parse_action
from rusty_hf.protocol.pointers import (
    MARKERS,
    is_marked,
    mark_action,
    mark_conversation,
    mark_request,
    pointer_targets,
    pointer_token_ids,
    request_spans,
    strip_markers,
)
from rusty_hf.protocol.vocabulary import token_table

REQUEST = "in notes.txt replace 'rapid' with 'mighty'"
SED = '{"action": "CMD", "command": "sed -i \'s/rapid/mighty/\' notes.txt"}'


@pytest.fixture(scope="module")
def tokenizer():
    from rusty_hf.tokenizer import train_tokenizer

    texts = [mark_request(REQUEST), mark_action(SED, REQUEST), REQUEST, SED, "wc -l notes.txt head -n 2"] * 40
    return train_tokenizer(texts, vocab_size=320, show_progress=False)


def test_each_span_is_led_by_its_marker_in_the_order_the_request_holds_them():
    marked = mark_request(REQUEST)
    assert marked == f"in {MARKERS[0]}notes.txt replace '{MARKERS[1]}rapid' with '{MARKERS[2]}mighty'"
    assert strip_markers(marked) == REQUEST
    assert mark_request(marked) == marked  # marking a marked request changes nothing


def test_spans_are_quoted_values_names_and_counts_not_plain_words():
    spans = request_spans("append 'call the bank at 5' to data/x.csv, then show the first two lines of BudgetArchive")
    assert [s.text for s in spans] == ["call the bank at 5", "data/x.csv", "2", "BudgetArchive"]


def test_a_users_own_marker_bytes_are_dropped_and_spans_beyond_the_markers_are_left_unmarked():
    assert mark_request(f"cat {MARKERS[5]}a.txt") == f"cat {MARKERS[0]}a.txt"
    assert is_marked(mark_request(REQUEST)) and not is_marked(f"cat {MARKERS[5]}a.txt") and not is_marked(REQUEST)
    long = " ".join(f"w{i}" for i in range(len(MARKERS) + 5))
    assert len(pointer_targets(long)) == len(MARKERS)


def test_an_action_points_where_its_strings_hold_a_span_at_a_words_edges():
    marked = mark_action(SED, REQUEST)
    targets = pointer_targets(REQUEST)
    rapid, mighty, notes = (next(m for m, t in targets.items() if t == w) for w in ("rapid", "mighty", "notes.txt"))
    assert marked == SED.replace("s/rapid", f"s/{rapid}rapid").replace("/mighty", f"/{mighty}mighty").replace(
        "' notes", f"' {notes}notes")
    assert strip_markers(marked) == SED
    # inside a longer word no pointer goes ("rapids"); a message is the model's own text
    assert mark_action('{"action": "CMD", "command": "cat rapids.txt"}', REQUEST) == '{"action": "CMD", "command": "cat rapids.txt"}'
    msg = '{"action": "MSG", "message": "Replaced rapid."}'
    assert mark_action(msg, REQUEST) == msg


def test_a_content_points_after_an_escaped_newline_and_the_longest_span_wins():
    request = "write 'quick mountain' and 'quick' to gate.txt"
    edit = json.dumps({"action": "EDIT", "path": "gate.txt", "content": "quick mountain\nquick\n"})
    marked = mark_action(edit, request)
    targets = {t: m for m, t in pointer_targets(request).items()}
    assert f'"content": "{targets["quick mountain"]}quick mountain\\n{targets["quick"]}quick\\n"' in marked
    assert parse_action(strip_markers(marked)).content == "quick mountain\nquick\n"


def test_a_conversation_is_marked_turn_by_turn():
    chat = [{"role": "system", "content": "s"}, {"role": "user", "content": "wc notes.txt"},
            {"role": "assistant", "content": '{"action": "CMD", "command": "wc -l notes.txt"}'},
            {"role": "tool", "name": "CMD", "content": "3 notes.txt"}, {"role": "user", "content": "cat a.py"},
            {"role": "assistant", "content": '{"action": "CMD", "command": "cat notes.txt"}'}]  # fmt: skip
    marked = mark_conversation(chat)
    assert marked[3] == chat[3]  # a tool's output is not marked
    assert MARKERS[0] + "notes.txt" in marked[2]["content"]
    assert marked[4]["content"] == f"cat {MARKERS[0]}a.py"
    assert marked[5]["content"] == chat[5]["content"]  # a turn points into its own request only: a.py, not notes.txt
    assert mark_conversation(marked) == marked
    assert [strip_markers(m["content"]) for m in marked] == [m["content"] for m in chat]


def test_a_pointers_tokens_write_its_span_json_escaped(tokenizer):
    table = token_table(tokenizer)
    request = 'echo "say \\"hi\\"" and \'a "b"\' to x.txt'
    for marker_id, forced in pointer_token_ids(tokenizer, request).items():
        marker = table.token_bytes[marker_id].decode()
        written = b"".join(table.token_bytes[i] for i in forced)
        assert json.loads(f'"{written.decode()}"') == pointer_targets(request)[marker]


def _step(processor, ids, vocab):
    return processor(torch.tensor([ids]), torch.zeros(1, vocab))


def test_the_processor_allows_a_marker_at_a_words_edge_then_forces_its_span(tokenizer):
    table = token_table(tokenizer)
    vocab = len(table.token_bytes)
    request = mark_request(REQUEST)
    pointers = pointer_token_ids(tokenizer, request)
    rapid = next(i for i, f in pointers.items() if b"".join(table.token_bytes[t] for t in f) == b"rapid")
    processor = ProtocolLogitsProcessor(tokenizer, prompt_length=1, pointers=[pointers])
    prompt = [0]
    opened = tokenizer(' {"action": "CMD", "command": "sed -i \'s/', add_special_tokens=False)["input_ids"]
    for end in range(len(opened) + 1):
        scores = _step(processor, prompt + opened[:end], vocab)
    assert all(torch.isfinite(scores[0, i]) for i in pointers)  # after "s/" a word may start
    ids = prompt + opened + [rapid]
    written = []
    while True:
        scores = _step(processor, ids, vocab)
        allowed = torch.isfinite(scores[0]).nonzero().flatten().tolist()
        if len(allowed) > 1:
            break
        written.append(allowed[0])
        ids.append(allowed[0])
    assert b"".join(table.token_bytes[i] for i in written) == b"rapid"
    assert bytes(processor._rows[0].text).endswith(b"s/rapid")  # the marker itself adds no byte
    assert not any(torch.isfinite(scores[0, i]) for i in pointers)  # right after a word: no marker
    # no marker outside a pointed field: not in a message
    processor = ProtocolLogitsProcessor(tokenizer, prompt_length=1, pointers=[pointers])
    message = tokenizer(' {"action": "MSG", "message": "', add_special_tokens=False)["input_ids"]
    for end in range(len(message) + 1):
        scores = _step(processor, prompt + message[:end], vocab)
    assert not any(torch.isfinite(scores[0, i]) for i in pointers)


def test_a_span_with_a_space_is_no_path_and_no_program(tokenizer):
    table = token_table(tokenizer)
    vocab = len(table.token_bytes)
    request = mark_request("save 'call mom' as todo.txt")
    pointers = pointer_token_ids(tokenizer, request)
    spaced = [m for m, f in pointers.items() if b" " in b"".join(table.token_bytes[t] for t in f)]
    named = [m for m in pointers if m not in spaced]
    assert spaced and named

    def allowed_after(text: str) -> set[int]:
        processor = ProtocolLogitsProcessor(tokenizer, prompt_length=1, pointers=[pointers])
        ids = [0] + tokenizer(text, add_special_tokens=False)["input_ids"]
        for end in range(2, len(ids) + 1):
            scores = _step(processor, ids[:end], vocab)
        return {m for m in pointers if torch.isfinite(scores[0, m])}

    assert allowed_after(' {"action": "EDIT", "path": "') == set(named)
    assert allowed_after(' {"action": "CMD", "command": "') == set(named)
    assert allowed_after(' {"action": "CMD", "command": "echo \'') == set(pointers)
    assert allowed_after(' {"action": "EDIT", "path": "todo.txt", "content": "') == set(pointers)


def test_rewards_read_a_completion_without_its_markers():
    from rusty_hf.rewards.extract import completion_text
    from rusty_hf.rewards.terminal import _turns

    marked = mark_action(SED, REQUEST)
    assert completion_text(marked) == SED
    assert completion_text([{"role": "assistant", "content": marked}]) == SED
    call = {"function": {"name": "CMD", "arguments": {"command": json.loads(marked, strict=False)["command"]}}}
    assert completion_text([{"role": "assistant", "content": "", "tool_calls": [call]}]) == SED
    assert _turns(marked)[0].command == "sed -i 's/rapid/mighty/' notes.txt"
    assert _turns([{"role": "assistant", "content": "", "tool_calls": [call]}])[0].command == "sed -i 's/rapid/mighty/' notes.txt"


def test_training_rows_point_at_what_the_generator_copied_and_strip_back_to_the_reference():
    from rusty_hf.data.terminal.dataset import sft_messages, training_requests

    requests = [r for r in training_requests(300, seed=3, multi_turn_share=0.0) if not r.closing]
    pointed = 0
    for request in requests:
        messages = sft_messages(request)
        marked = mark_conversation(messages)
        assert [strip_markers(m["content"]) for m in marked] == [m["content"] for m in messages]
        named = [str(a) for a in request.case.args if str(a) in pointer_targets(request.text).values()]
        action = marked[-1]["content"]
        pointed += bool(named)
        for arg in named:  # every argument the request spells as a span is pointed at, not spelled
            markers = [m for m, t in pointer_targets(request.text).items() if t == arg]
            assert any(m in action for m in markers), (request.text, action)
    assert pointed > len(requests) // 3


@pytest.mark.parametrize("decoder", ["evaluation", "stream"])
def test_each_decoder_marks_a_pointer_models_chat_and_returns_what_runs(decoder, tiny_model, tokenizer, monkeypatch):
    from rusty_hf.evaluation import terminal
    from rusty_hf.inference import streaming

    module = terminal if decoder == "evaluation" else streaming
    seen = []
    real = module.reply_processors
    monkeypatch.setattr(module, "reply_processors", lambda tok, convs, **kw: seen.extend(convs) or real(tok, convs, **kw))
    tiny_model.config.copy_pointers = True
    tiny_model.resize_token_embeddings(len(tokenizer))
    chat = [{"role": "user", "content": REQUEST}]
    if decoder == "evaluation":
        reply = terminal.generate_replies(tiny_model, tokenizer, [chat], max_new_tokens=12)[0]
    else:
        reply = "".join(streaming.stream_pieces(tiny_model, tokenizer, chat, max_new_tokens=12, timeout_s=None))
    assert seen[0][-1]["content"] == mark_request(REQUEST)  # the model read the marked request
    assert not any(ch in reply for ch in MARKERS)
