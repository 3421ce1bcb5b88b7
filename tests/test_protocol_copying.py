"""The copy bias: inside an action's string, tokens that copy a name of the request get a bonus."""

import re

import pytest
import torch

from rusty_hf.protocol import ProtocolLogitsProcessor
from rusty_hf.protocol.copying import (
    SHOWN_LINES,
    CopyBias,
    copy_candidates,
    copy_sources,
    copy_targets,
    earlier_paths,
    earlier_sources,
    escape_for_json_string,
    output_lines,
)
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
    # a path is copied whole: its basename alone names no file here (wc -c run_x.py fails)
    assert set(copy_candidates(["first 6 lines of scripts/run_x.py"])) == {"scripts/run_x.py", "6"}
    assert copy_candidates(["where is ./src/lib.rs?"]) == ["src/lib.rs"]


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

    # in prose (a MSG) a copy after a colon or a comma starts there or after its space ("untracked: a.txt"). With the
    # bonus on the bare start alone, a closing took it without its space and drifted ("It prints:wavy water ...")
    after = _texts(bias.bonuses(b"New, untracked:", NAMES, spaced=True), table)
    assert {t[:1] for t in after} == {b"h", b" "}
    assert all(b"harbor_notes.txt".startswith(t) or b" harbor_notes.txt".startswith(t) for t in after)
    assert {t[:1] for t in _texts(bias.bonuses(b"cut -d,", NAMES), table)} == {b"h"}  # a command: no space there


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


def test_a_request_may_copy_the_work_dirs_files_the_conversation_named_before(tokenizer):
    """"how many lines is it?" names no file: the files the earlier turns named (in a request, an action, an output)
    are EARLIER names, only those the work dir has (no folder), only where the request names nothing but a number,
    and only for a command's arguments: never its program, an EDIT's path (a create request that names no file must
    not overwrite one) or a message."""
    messages = [{"role": "system", "content": "persona"}, {"role": "user", "content": "show me notes.md, the first 3"},
                {"role": "assistant", "content": '{"action": "CMD", "command": "grep -rn \'ok\' ."}'},
                {"role": "tool", "name": "CMD", "content": "./pkg/gauge.py:4:ok\n./gone.py:1:ok"},
                {"role": "assistant", "content": "It shows: ./pkg/gauge.py:4:ok"},
                {"role": "user", "content": "how many lines is it?"}]  # fmt: skip
    work_dir = ["notes.md", "pkg", "pkg/gauge.py", "readings.csv", "data", "data/readings.csv", ".env"]
    earlier = earlier_sources(messages)
    assert "how many lines is it?" not in earlier and "persona" not in earlier
    assert earlier_sources([{"role": "system", "content": "x"}]) == []
    assert earlier_paths(earlier, work_dir) == ["pkg/gauge.py", "notes.md"]
    assert earlier_paths(["the gauge.py file"], work_dir) == ["pkg/gauge.py"]  # its one folder brings the path
    assert earlier_paths(["readings.csv"], work_dir) == ["readings.csv"]  # a path as written, not the other folder's
    assert earlier_paths(["ls: data notes.md pkg - .. /"], work_dir) == ["notes.md"]  # a folder is not "it"
    assert earlier_paths(["cat .env", "see notes.md."], work_dir) == ["notes.md", ".env"]  # longest first
    targets = copy_targets(copy_sources(messages), work_dir, earlier=earlier)
    assert targets.names == () and targets.earlier == ("pkg/gauge.py", "notes.md") and not targets.quoted
    assert copy_targets(["and in readings.csv?"], work_dir, earlier=earlier).earlier == ()
    assert copy_targets(["last 3 lines of it"], work_dir, earlier=earlier).earlier == ("pkg/gauge.py", "notes.md")
    assert copy_targets(["how many lines is it?", "7 notes.md"], work_dir, earlier=earlier).earlier == ()  # the output's
    table = token_table(tokenizer)
    bias = CopyBias(table.token_bytes)
    escaped = targets.escaped()

    def starts(value: bytes, field: str) -> set[bytes]:
        return _texts(bias.field_bonuses(value, escaped, field, written=b""), table)

    assert starts(b"wc -l ", "command") and all(b"pkg/gauge.py".startswith(t) or b"notes.md".startswith(t)
                                                for t in starts(b"wc -l ", "command"))  # fmt: skip
    assert starts(b"", "command") == starts(b"", "path") == starts(b"It has ", "message") == set()
    assert bias.field_bonuses(b"", escaped, "path", written=b"")[1] is None  # nothing locks a new file's path


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
    assert b"." not in allowed and b"/" not in allowed  # no bending the name (data/bea + .csv)
    assert b'"' not in allowed and b" " not in allowed  # nor stopping: "harb" is no file ("cat app" + " x" for app.py)


def test_a_programs_name_may_stop_short_of_a_file_name_after_it_a_file_name_is_finished():
    tokens = [b"cat", b"alog", b".py", b" ", b'"', b" cat", b"x"]
    bias = CopyBias(tokens)
    targets = copy_targets(["show catalog.py"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"cat", targets, "command", written=b"")
    assert kept is not None and tokens.index(b" ") not in restrict  # `cat catalog.py`: the program ends here
    _, kept, restrict = bias.field_bonuses(b"cat cat", targets, "command", written=b"")
    allowed = {tokens[i] for i in range(len(tokens)) if i not in set(restrict) - set(kept)}
    assert b"alog" in allowed and b" " not in allowed and b'"' not in allowed


def test_a_quotes_one_letter_operator_is_its_own_syntax_not_a_copy(tmp_path):
    """`sed -i 'stormy/ready/'` was written when the s of the script locked into 'stormy': inside a quote that may
    hold text the work dir holds, one letter before a ``/`` is the quote's own syntax (no rule names sed), at the
    values' bonus; after the ``/`` a value starts again. New text (no file holds it) has no operator before it."""
    (tmp_path / "notes.txt").write_text("a stormy day\n")
    tokens = [b"s", b"/", b"stormy", b"t", b"ormy", b"'", b"x", b"ready"]
    bias = CopyBias(tokens)
    request = ["turn 'stormy' into 'ready' in notes.txt"]
    targets = copy_targets(request, ["notes.txt"], root=tmp_path).escaped()
    bonuses, kept, _ = bias.field_bonuses(b"sed -i '", targets, "command", written=b"")
    assert {tokens[i] for i in kept} >= {b"s", b"stormy"} and bonuses[0] == bonuses[2] == bias.quoted_bonus
    _, kept, _ = bias.field_bonuses(b"sed -i 's", targets, "command", written=b"")
    assert b"/" in {tokens[i] for i in kept}  # the s may be the operator ...
    bonuses, kept, _ = bias.field_bonuses(b"sed -i 's/", targets, "command", written=b"")
    assert tokens.index(b"stormy") in bonuses and {tokens[i] for i in kept} <= {b"s", b"stormy"}  # ... then a value
    new_text = copy_targets(["append 'ready' to notes.txt"], ["notes.txt"], root=tmp_path).escaped()
    _, kept, _ = bias.field_bonuses(b"echo '", new_text, "command", written=b"")
    assert {tokens[i] for i in kept} == {b"ready"}


def test_a_flag_letter_starts_no_copy():
    bias = CopyBias([b"c", b"alm", b" calm", b"ca"])
    assert bias.continuations(b"wc -c", [b"calm_cable.py"]) == ([b" calm_cable.py"], 0)  # a new word, not "c" + "alm"
    assert bias.continuations(b"wc -c ca", [b"calm_cable.py"]) == ([b"lm_cable.py"], 2)


# -- per field: which value goes to which slot (CopyTargets, field_bonuses) ---------------------------

EDIT_REQUEST = "create plum_dam.txt containing 'tame lily set'"


@pytest.fixture(scope="module")
def slot_table():
    from rusty_hf.tokenizer import train_tokenizer

    texts = [EDIT_REQUEST, "notes.txt needs one more line: 'fast oyster ready'", "cat flag/customer_patch.py",
             '{"action": "EDIT", "path": "plum_dam.txt", "content": "tame lily set\\n"}', "fast set tropical"] * 50  # fmt: skip
    return token_table(train_tokenizer(texts, vocab_size=360, show_progress=False))


def _allowed(kept, restrict, table) -> set[bytes]:
    """The tokens a lock leaves: everything outside ``restrict``, and the kept ones."""
    blocked = set(restrict) - set(kept)
    return {data for i, data in enumerate(table.token_bytes) if data and i not in blocked}


def test_a_quote_inside_a_word_opens_nothing():
    targets = copy_targets(["I'm looking for the line 'fierce vector up' now"])
    assert targets.quoted == {"fierce vector up"} and "m looking for the line " not in targets.names
    assert copy_targets(["replace 'a' with 'b' in notes.txt"]).quoted == {"a", "b"}


def test_a_quoted_value_starts_with_the_larger_bonus(slot_table):
    bias = CopyBias(slot_table.token_bytes, start_bonus=6.0, quoted_bonus=9.0)
    targets = copy_targets([EDIT_REQUEST]).escaped()
    bonuses, kept, _ = bias.field_bonuses(b"echo ", targets, "command", written=b"")
    by_text = {slot_table.token_bytes[i]: b for i, b in bonuses.items()}
    assert kept is None
    assert {b for t, b in by_text.items() if b"tame lily set".startswith(t)} == {9.0}
    assert {b for t, b in by_text.items() if b"plum_dam.txt".startswith(t)} == {6.0}


def test_a_quote_that_opens_an_argument_starts_an_unused_quoted_value_and_copies_it_whole(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["notes.txt needs one more line: 'fast oyster ready'"]).escaped()
    for command in (b"echo '", b'grep -rn \\"', b"x=$(echo '"):  # a quote after a space, `(` or `=`: no program named
        bonuses, kept, restrict = bias.field_bonuses(command, targets, "command", written=b"")
        allowed = {t for t in _allowed(kept, restrict, slot_table) if len(t) > 1}  # one letter may be an operator
        assert allowed and all(b"fast oyster ready".startswith(t) for t in allowed), command
        assert {bonuses[i] for i in kept if len(slot_table.token_bytes[i]) > 1} == {bias.quoted_bonus}
    # "f" starts both: the copy goes on ("fuzzy fast oyster ready" was written so)
    _, kept, restrict = bias.field_bonuses(b"echo 'f", targets, "command", written=b"")
    assert all(b"ast oyster ready".startswith(t) for t in _allowed(kept, restrict, slot_table) if t != b"/")
    # whole: the quote closes; not once the value is used, not after a closed quote
    _, kept, restrict = bias.field_bonuses(b"echo 'fast oyster ready", targets, "command", written=b"")
    assert {t[:1] for t in _allowed(kept, restrict, slot_table)} <= {b"'", b"/"}
    for command in (b"echo 'fast oyster ready' >> '", b"echo 'x' "):
        _, kept, _ = bias.field_bonuses(command, targets, "command", written=b"")
        assert kept is None, command


def test_a_content_that_is_a_quoted_value_is_that_line(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets([EDIT_REQUEST]).escaped()
    written = b'{"action": "EDIT", "path": "plum_dam.txt", "content": "'
    bonuses, kept, _ = bias.field_bonuses(b"", targets, "content", written=written)
    assert kept is None and {bonuses[i] for i in bonuses} == {bias.quoted_bonus}  # a bonus: code may come first
    # whole: the line ends and the string closes ("tame lily set])\n ..." was written)
    _, kept, restrict = bias.field_bonuses(b"tame lily set", targets, "content", written=written)
    allowed = _allowed(kept, restrict, slot_table)
    assert allowed and all(b'\\n"'.startswith(t) or t.startswith(b'"') for t in allowed)
    _, kept, restrict = bias.field_bonuses(b"tame lily set\\n", targets, "content", written=written)
    assert {t[:1] for t in _allowed(kept, restrict, slot_table)} == {b'"'}


def test_a_literal_in_code_holds_a_quoted_value_else_a_name(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    written = b'{"action": "EDIT", "path": "plum_dam.py", "content": "'
    quoted = copy_targets(["please add plum_dam.py that prints 'fast oyster ready'"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"print('", quoted, "content", written=written)
    allowed = _allowed(kept, restrict, slot_table)
    assert allowed and all(b"fast oyster ready".startswith(t) for t in allowed)
    _, kept, restrict = bias.field_bonuses(b"print('fast oyster ready", quoted, "content", written=written)
    assert all(t.startswith(b"'") for t in _allowed(kept, restrict, slot_table))  # then the literal closes
    # no quoted value: a name of the request not used yet (the path holds plum_dam.py) gets the start bonus, and
    # locks at its first byte; the literal stays the model's to write (`split(',')`)
    named = copy_targets(["please add plum_dam.py that prints 42"]).escaped()
    bonuses, kept, _ = bias.field_bonuses(b"print('", named, "content", written=written)
    assert kept is None and _texts(bonuses, slot_table) and all(b"42".startswith(t) for t in _texts(bonuses, slot_table))
    _, kept, restrict = bias.field_bonuses(b"print('4", named, "content", written=written)
    assert _allowed(kept, restrict, slot_table) and all(b"2".startswith(t) for t in _allowed(kept, restrict, slot_table))
    # no word list picks a plain word: the model's own text (`print('smooth')` is what it writes)
    plain = copy_targets(["please add plum_dam.py that prints the word tropical"]).escaped()
    assert bias.field_bonuses(b"print('", plain, "content", written=written)[1] is None
    assert bias.field_bonuses(b"import sys", quoted, "content", written=written)[1] is None


def test_a_count_written_as_a_word_is_offered_as_its_digits():
    assert set(copy_candidates(["the first two lines of notes.txt"])) == {"notes.txt", "2"}
    assert set(copy_candidates(["Twelve lines from the end of a.py"])) == {"a.py", "12"}
    assert set(copy_candidates(["add one more line"])) == {"1"}


def test_a_file_named_by_its_basename_or_in_another_case_is_resolved_for_a_commands_arguments(slot_table):
    """`cat april.txt` fails for log/april.txt and `head -n 1 readme` for README.md: RESOLVED offers the path to a
    command's arguments, while what the user typed stays a name (`find . -name "april.txt"`, an EDIT's path)."""
    work = ["README.md", "notes.md", "log", "log/april.txt", "a/x.py", "b/x.py", "data/wallet.csv", "Cargo.toml"]
    assert copy_targets(["first line of the readme"], work).resolved == ("README.md",)
    assert copy_targets(["cat April.txt and NOTES.md"], work).resolved == ("log/april.txt", "notes.md")
    # two files answer to it; a plain word in a file's own case; a program's name
    for request in ("what is in x.py", "put a wallet in it", "cargo build", "show notes", "list log"):
        assert copy_targets([request], work).resolved == (), request
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["last line of april.txt"], work).escaped()
    bonuses, _, _ = bias.field_bonuses(b"tail -n 1 ", targets, "command", written=b"")
    assert any(slot_table.token_bytes[t].startswith(b"l") for t in bonuses)  # log/april.txt starts here
    for value, field in ((b"", "command"), (b"find . -name \\\"", "command"), (b"", "path"), (b"It is ", "message")):
        bonuses, kept, _ = bias.field_bonuses(value, targets, field, written=b"")
        assert not any(slot_table.token_bytes[t].startswith(b"l") for t in [*bonuses, *(kept or ())]), (value, field)


def test_an_ordinal_is_offered_as_its_number_and_never_whole(slot_table):
    """`head -n 3rd` was a copy of "3rd" whole: the digits begun, the lock finished the name."""
    assert set(copy_candidates(["3rd line of watering.md?"])) == {"watering.md", "3"}
    assert set(copy_candidates(["the Fifth line of a.txt", "line 21st"])) == {"a.txt", "5", "21"}
    assert set(copy_candidates(["the first 5 lines", "a second file"])) == {"5"}  # they often name no line
    assert set(copy_candidates(["what is in 2nd"], ["2nd/a.txt"])) == {"2nd"}  # a folder's name stays a name
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["3rd line of watering.md?"]).escaped()
    bonuses, kept, restrict = bias.field_bonuses(b"head -n 3", targets, "command", written=b"")
    allowed = _allowed(kept, restrict, slot_table)
    assert not any(t[:1].isdigit() for t in allowed)  # the number is whole
    assert not any(slot_table.token_bytes[i][:1].isalpha() for i in [*bonuses, *(kept or ())])  # no "rd" after it


def test_a_copy_locks_at_its_first_byte_in_a_command_and_at_its_third_in_a_message(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["cat flag/customer_patch.py"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"wc -l f", targets, "command", written=b"")
    allowed = _allowed(kept, restrict, slot_table)
    assert allowed and all(b"lag/customer_patch.py".startswith(t) for t in allowed if t[:1].isalnum())
    assert bias.field_bonuses(b"It is f", targets, "message", written=b"")[1] is None  # "f" of "fine" stays free
    assert bias.field_bonuses(b"It is fla", targets, "message", written=b"")[1] is not None


def test_an_output_line_led_by_a_hash_or_a_number_is_quotable_without_it():
    lines = output_lines("3f9e2a1 Add the fetch_pirates script\n12. rename the log\nab12 two words\n[exit code 0]")
    assert lines == ["3f9e2a1 Add the fetch_pirates script", "Add the fetch_pirates script", "12. rename the log",
                     "rename the log", "ab12 two words"]


def test_an_edit_path_is_one_of_the_request_names_from_first_byte_to_closing_quote(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets([EDIT_REQUEST]).escaped()
    _, kept, restrict = bias.field_bonuses(b"", targets, "path", written=b'{"action": "EDIT", "path": "')
    allowed = _allowed(kept, restrict, slot_table)
    assert allowed and all(b"plum_dam.txt".startswith(t) for t in allowed)  # not the quoted phrase, no other word
    _, kept, restrict = bias.field_bonuses(b"plum_d", targets, "path", written=b'... "path": "plum_d')
    assert all(b"am.txt".startswith(t) for t in _allowed(kept, restrict, slot_table))  # no early quote
    _, kept, restrict = bias.field_bonuses(b"plum_dam.txt", targets, "path", written=b'... "path": "plum_dam.txt')
    assert b'"' in _allowed(kept, restrict, slot_table)
    # a request that names no file leaves the path to the model
    _, kept, _ = bias.field_bonuses(b"", copy_targets(["write a script"]).escaped(), "path", written=b"")
    assert kept is None


def test_a_value_a_closed_string_holds_is_not_offered_again(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets([EDIT_REQUEST]).escaped()
    written = b'{"action": "EDIT", "path": "plum_dam.txt", "content": "'
    bonuses, _, _ = bias.field_bonuses(b"", targets, "content", written=written)
    texts = {slot_table.token_bytes[i] for i in bonuses}
    assert texts and all(b"tame lily set".startswith(t) for t in texts)


def test_a_quoted_phrase_is_copied_through_its_spaces(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["notes.txt needs one more line: 'fast oyster ready'"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"echo 'fast", targets, "command", written=b"")
    allowed = _allowed(kept, restrict, slot_table)
    assert b" set" in slot_table.token_bytes and b" set" not in allowed  # the model's own word may not cut in
    assert any(b" oyster ready".startswith(t) for t in allowed)
    assert not any(t.startswith(b" ") and t[1:2].isalpha() and not b" oyster ready".startswith(t) for t in allowed)


def test_a_half_copied_path_is_finished(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["show flag/customer_patch.py"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"cat flag/customer_patch", targets, "command", written=b"")
    allowed = _allowed(kept, restrict, slot_table)
    assert allowed and all(b".py".startswith(t) for t in allowed)
    # a plain prefix of a name is not a copy that must finish: "cat" before "catalog.py"
    _, kept, restrict = bias.field_bonuses(b"cat", copy_targets(["show catalog.py"]).escaped(), "command", written=b"")
    assert b" " in _allowed(kept, restrict, slot_table)


def test_a_half_copied_number_is_finished(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["first 10 lines of notes.txt"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"head -n 1", targets, "command", written=b"")
    allowed = _allowed(kept, restrict, slot_table)
    assert allowed and all(t and b"0".startswith(t) for t in allowed)  # "1" of "10": only its "0" may follow
    # where the conversation names "1" as well, the model may stop there
    both = copy_targets(["first 10 lines of notes.txt, or 1"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"head -n 1", both, "command", written=b"")
    assert b" " in _allowed(kept, restrict, slot_table)


def test_the_processor_locks_an_edit_path_to_the_named_file(tokenizer):
    table = token_table(tokenizer)
    processor = ProtocolLogitsProcessor(tokenizer, copy_names=[copy_targets(["create harbor_notes.txt please"])])
    scores = torch.zeros(1, len(table.token_bytes))
    ids = torch.tensor([[1, 2, 3] + tokenizer(' {"action": "EDIT", "path": "', add_special_tokens=False)["input_ids"]])
    for end in range(3, ids.shape[1] + 1):
        out = processor(ids[:, :end], scores.clone())
    allowed = {table.token_bytes[i] for i in torch.isfinite(out[0]).nonzero()[:, 0].tolist()}
    assert allowed and all(b"harbor_notes.txt".startswith(t) for t in allowed)


def test_a_msg_may_quote_an_output_line_whole():
    tokens = [b"rapid", b" cursor", b" ok", b"spare", b" spare", b" rope", b"r", b"It", b" prints", b":", b" ", b'"']
    bias = CopyBias(tokens, start_bonus=6.0, quoted_bonus=9.0)
    targets = copy_targets(["what does scripts/x.py print? tell me", "rapid cursor ok\n[exit code 0]"]).escaped()
    assert targets.lines == (b"rapid cursor ok",)
    bonuses, _, _ = bias.field_bonuses(b"It prints: ", targets, "message", written=b'{"action": "MSG", "message": "')
    assert bonuses[tokens.index(b"rapid")] == 9.0 and tokens.index(b"spare") not in bonuses
    bonuses, kept, restrict = bias.field_bonuses(b"It prints: rapid", targets, "message", written=b"")
    assert tokens.index(b" cursor") in kept and tokens.index(b" spare") in restrict  # on through its spaces
    # a command's text copies no output line
    bonuses, _, _ = bias.field_bonuses(b"echo ", targets, "command", written=b"")
    assert tokens.index(b"rapid") not in bonuses


def test_output_lines_are_a_few_words_not_status_or_short_codes():
    assert output_lines("rapid cursor ok\n[exit code 0]") == ["rapid cursor ok"]
    assert output_lines("M notes.txt\n?? new.py\n[exit code 0]") == []  # git's status letters
    assert output_lines("single\n" + "long " * 30) == []


def test_a_finished_copy_ends_its_word_and_leaves_what_follows_to_the_model():
    tokens = [b"call", b" mom", b" notes", b".txt", b"'", b" >>", b"ortar", b"src", b"/util", b".py", b" creek", b"5", b"/"]
    bias = CopyBias(tokens)
    names = [b"call mom", b"notes.txt"]
    bonuses, kept = bias.bonuses(b"echo 'call mom", names, quoted=frozenset({b"call mom"}))
    assert bonuses == {} and kept == []  # no " notes" before the closing quote; locked: "ortar" may not follow
    _, kept, restrict = bias.field_bonuses(b"echo 'call mom", copy_targets(["add 'call mom' to notes.txt"]).escaped(),
                                           "command", written=b"")  # fmt: skip
    allowed = {tokens[i] for i in range(len(tokens)) if i not in set(restrict) - set(kept)}
    assert b"'" in allowed and b"ortar" not in allowed and b" >>" not in allowed  # the argument's quote closes it
    _, kept, restrict = bias.field_bonuses(b"Added call mom", copy_targets(["add 'call mom' to notes.txt"]).escaped(),
                                           "message", written=b"")  # fmt: skip
    assert tokens.index(b" >>") not in restrict and tokens.index(b" mom") in restrict  # no word after a quoted value
    _, kept, restrict = bias.field_bonuses(b"sed -i 's/call mom", copy_targets(["use 'call mom'"]).escaped(),
                                           "command", written=b"")  # fmt: skip
    assert tokens.index(b"/") in kept and tokens.index(b" >>") not in kept  # a / may part it from the next
    assert tokens.index(b"/util") not in kept  # the `/` alone: what follows it is the next value
    # after a name that is not quoted, the next may start: "head -n 5" + " creek/page.py"
    bonuses, kept = bias.bonuses(b"head -n 5", [b"5", b"creek/page.py"])
    assert tokens.index(b" creek") in bonuses and kept == []
    # a name that a longer one goes on from is not finished: "src" of "src/util.py"
    assert bias.continuations(b"cat src", [b"src", b"src/util.py"]) == ([b"/util.py"], 3)


def test_a_command_does_not_start_with_the_quoted_text(slot_table):
    bias = CopyBias(slot_table.token_bytes)
    targets = copy_targets(["notes.txt needs one more line: 'fast oyster ready'"]).escaped()
    bonuses, _, _ = bias.field_bonuses(b"", targets, "command", written=b"")
    assert not any(b"fast oyster ready".startswith(slot_table.token_bytes[i]) for i in bonuses)
    bonuses, _, _ = bias.field_bonuses(b"echo '", targets, "command", written=b"")
    assert any(b"fast oyster ready".startswith(slot_table.token_bytes[i]) for i in bonuses)


@pytest.fixture(scope="module")
def write_table():
    from rusty_hf.tokenizer import train_tokenizer

    texts = ["append 'fast oyster ready' to plum_dam.txt", "echo 'fast oyster ready' >> plum_dam.txt",
             "use 'ready' instead of 'stormy' in notes.txt", "sed -i 's/stormy/ready/' notes.txt"] * 50  # fmt: skip
    return token_table(train_tokenizer(texts, vocab_size=319, show_progress=False))


def test_a_redirect_writes_to_a_file_the_request_names(write_table):
    bias = CopyBias(write_table.token_bytes)
    request = ["append 'fast oyster ready' to plum_dam.txt"]
    targets = copy_targets(request, workspace_names=["notes.txt", "plum_dam.txt"]).escaped()
    for command, rest in ((b"echo 'fast oyster ready' >> ", b"plum_dam.txt"), (b"echo 'fast oyster ready' >>", b" plum_dam.txt")):
        bonuses, kept, _ = bias.field_bonuses(command, targets, "command", written=b"")
        # where the file starts, a bonus for the named file (not notes.txt, not the quoted text); `>&2` or
        # `/dev/null` stay the model's to write
        assert kept is None and _texts(bonuses, write_table) and all(rest.startswith(t) for t in _texts(bonuses, write_table))
    bonuses, kept, restrict = bias.field_bonuses(b"echo 'fast oyster ready' >> plu", targets, "command", written=b"")
    allowed = _allowed(kept, restrict, write_table)
    assert allowed and all(b"m_dam.txt".startswith(t) for t in allowed)  # begun: locked to it, whole
    assert set(bonuses) <= set(kept)
    # the file the command reads is not the file it writes
    read = copy_targets(["count the words of plum_dam.txt into count.txt"]).escaped()
    bonuses, _, _ = bias.field_bonuses(b"wc -w plum_dam.txt > ", read, "command", written=b"")
    assert not any(b"plum_dam.txt".startswith(t) for t in _texts(bonuses, write_table))
    # a file name that is whole ends there; a request that names no file leaves the target to the model
    assert bias.field_bonuses(b"echo 'x' >> plum_dam.txt", targets, "command", written=b"")[1] == []
    unnamed = copy_targets(["append 'fast oyster ready' to my notes"], workspace_names=["notes.txt"]).escaped()
    assert bias.field_bonuses(b"echo 'fast oyster ready' >> ", unnamed, "command", written=b"")[1] is None
    for command in (b"cargo test 2>", b"python3 -c 'def f() ->"):  # stderr's redirect, an annotation: no file
        assert bias.field_bonuses(command, targets, "command", written=b"")[1] is None


def test_a_quoted_value_the_workspace_holds_starts_first_then_the_other(write_table, tmp_path):
    """`s/sturdy/table/` for "replace 'table' with 'sturdy'": where a quote may hold either value, the one a file of
    the work dir holds comes first (text that is there before text that is new); no rule names sed."""
    (tmp_path / "notes.txt").write_text("a stormy day\n")
    request = ["use 'ready' instead of 'stormy' in notes.txt"]
    targets = copy_targets(request, ["notes.txt"], root=tmp_path)
    assert targets.present == {"stormy"}
    bias = CopyBias(write_table.token_bytes)
    for command, rest in ((b"sed -i 's/", b"stormy"), (b"sed -i 's/st", b"ormy"), (b"sed -i 's/stormy/", b"ready"),
                          (b"grep -n '", b"stormy")):  # fmt: skip
        _, kept, restrict = bias.field_bonuses(command, targets.escaped(), "command", written=b"")
        allowed = {t for t in _allowed(kept, restrict, write_table) if len(t) > 1 or t in rest[:1]}
        assert allowed and all(rest.startswith(t) or t.startswith(b"/") for t in allowed), (command, allowed)
    # without the workspace (or where no file holds a value) either value may start
    _, kept, _ = bias.field_bonuses(b"sed -i 's/", copy_targets(request, ["notes.txt"]).escaped(), "command", written=b"")
    texts = {write_table.token_bytes[i] for i in kept}
    assert any(b"ready".startswith(t) for t in texts) and any(b"stormy".startswith(t) for t in texts)


def test_only_small_files_inside_the_workspace_are_read_for_quoted_values(tmp_path):
    work, outside = tmp_path / "work", tmp_path / "secret.txt"
    work.mkdir()
    outside.write_text("stormy\n")
    (work / "big.txt").write_text("stormy " * 60_000)
    (work / "d").mkdir()
    (work / "link.txt").symlink_to(outside)  # a link the model made: what it points at is not read
    (work / "up").symlink_to(tmp_path, target_is_directory=True)
    names = ["big.txt", "d", "gone.txt", "link.txt", "up/secret.txt", "../secret.txt"]
    assert copy_targets(["use 'ready' instead of 'stormy'"], names, root=work).present == set()


BYTES = [bytes([b]) for b in range(256)]  # a byte-level table: every byte, and nothing merged


def _byte_allowed(kept, restrict) -> set[bytes]:
    return {BYTES[i] for i in range(256) if kept is None or i not in set(restrict) - set(kept)}


def test_a_content_of_two_quoted_lines_goes_on_after_the_first():
    bias = CopyBias(BYTES)
    targets = copy_targets(["write 'alpha' and 'beta' to x.txt, one per line"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"alpha", targets, "content", written=b"")
    assert b"\\" in _byte_allowed(kept, restrict)  # a newline may follow: 'beta' is not written yet
    bonuses, kept, _ = bias.field_bonuses(b"alpha\\n", targets, "content", written=b"")
    # the next line is the model's: 'beta' may follow or go to another file ("put 'alpha' in a.txt, 'beta' in b.txt")
    assert bonuses == {} and kept is None
    bonuses, _, _ = bias.field_bonuses(b"gamma\\n", copy_targets(["write 'beta' to x.txt"]).escaped(), "content", written=b"")
    assert bonuses.get(ord("b")) == bias.quoted_bonus  # a newline starts a span
    _, kept, restrict = bias.field_bonuses(b"alpha\\nbeta", targets, "content", written=b"")
    allowed = _byte_allowed(kept, restrict)
    assert {b"\\", b'"'} <= allowed and b"x" not in allowed  # the last value in: no word goes on from it
    _, kept, restrict = bias.field_bonuses(b"alpha\\n", copy_targets(["add 'alpha' to x.txt"]).escaped(), "content", written=b"")
    assert _byte_allowed(kept, restrict) == {b'"'}  # a content that is one value: a newline, then the string ends


def test_a_name_is_held_as_a_whole_word_not_as_a_substring():
    from rusty_hf.protocol.copying import _holds

    assert not _holds(b"cat data.txt", b"a.txt") and _holds(b"cat data.txt a.txt", b"a.txt")
    assert not _holds(b"echo xs", b"x") and _holds(b"echo 'x'", b"x")
    bonuses, _, _ = CopyBias(BYTES).field_bonuses(b"diff data.txt ", copy_targets(["diff data.txt a.txt"]).escaped(),
                                                  "command", written=b"")  # fmt: skip
    assert ord("a") in bonuses


def test_a_substitution_may_end_with_flags_and_a_slash_parts_values_alone():
    bias = CopyBias([*BYTES, b"/usr"])
    targets = copy_targets(["replace 'alpha' with 'beta' in notes.txt"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"sed -i 's/alpha/beta/", targets, "command", written=b"")
    assert {b"'", b"g"} <= _byte_allowed(kept, restrict)
    _, kept, restrict = bias.field_bonuses(b"sed -i 's/alpha/beta/g", targets, "command", written=b"")
    assert _byte_allowed(kept, restrict) & set(BYTES[97:123]) == set() and b"'" in _byte_allowed(kept, restrict)  # then it closes
    _, kept, _ = bias.field_bonuses(b"sed -i 's/alpha", targets, "command", written=b"")
    assert ord("/") in kept and 256 not in kept  # `/usr` is no parting `/`


def test_a_code_literal_without_a_quoted_value_is_the_models():
    bias = CopyBias(BYTES)
    targets = copy_targets(["add split.py that splits a line on commas"]).escaped()
    _, kept, _ = bias.field_bonuses(b"print(line.split('", targets, "content", written=b'"path": "split.py"')
    assert kept is None  # `split(',')` can be written


def test_an_escaped_quote_does_not_close_its_quote():
    from rusty_hf.protocol.copying import _open_quote

    assert _open_quote(b'grep \\"a\\\\\\"b') == 7  # the shell's "a\"b: still open
    assert _open_quote(b'grep \\"a\\\\\\"b\\" f') is None
    assert _open_quote(b"print('it\\\\'s", shell=False) == 7  # Python's 'it\'s, wherever the quote opens
    assert _open_quote(b"x = 'it\\\\'s", shell=False) == 5
    assert _open_quote(b"echo 'a\\\\' x") is None  # the shell's single quote has no escapes


def test_a_double_quote_closes_without_a_merged_token():
    bias = CopyBias(BYTES)  # no `\"` token: its backslash starts the closing quote
    targets = copy_targets(['find "alpha" in notes.txt']).escaped()
    _, kept, _ = bias.field_bonuses(b'grep \\"alpha', targets, "command", written=b"")
    assert ord("\\") in kept


def test_a_long_output_offers_its_first_and_last_lines_only():
    from rusty_hf.protocol.copying import MAX_LINES

    output = "\n".join(f"line number {i:03d} here" for i in range(900))
    lines = copy_targets(["show it", output]).lines
    assert len(lines) == MAX_LINES and lines[0] == "line number 000 here" and lines[-1] == "line number 899 here"


def test_a_file_name_in_a_quote_is_its_whole_text_never_after_a_word():
    bias = CopyBias(BYTES)
    targets = copy_targets(["how many functions does tests/test_a.py define?"]).escaped()
    bonuses, kept, _ = bias.field_bonuses(b"grep -c 'def ", targets, "command", written=b"")
    assert ord("t") not in bonuses and kept is None  # the quote closes: the file comes after it
    bonuses, _, _ = bias.field_bonuses(b"find . -name '", copy_targets(["where is a.py?"]).escaped(), "command", written=b"")
    assert ord("a") in bonuses
    _, kept, _ = bias.field_bonuses(b"find . -name 'a.p", copy_targets(["where is a.py?"]).escaped(), "command", written=b"")
    assert kept == [ord("y")]  # begun at the quote's start: locked to it


def test_a_redirect_begun_as_no_named_file_is_the_models_and_a_whole_name_may_end():
    bias = CopyBias(BYTES)
    targets = copy_targets(["run app.py quietly, it writes data.csv"]).escaped()
    assert bias.field_bonuses(b"python3 app.py > /d", targets, "command", written=b"")[1] is None  # /dev/null
    both = copy_targets(["save the listing into files.txt and a copy in files.txt.bak"]).escaped()
    _, kept, restrict = bias.field_bonuses(b"ls > files.txt", both, "command", written=b"")
    assert {b" ", b".", b";"} <= _byte_allowed(kept, restrict)  # it may end, or go on to files.txt.bak


def test_each_output_offers_its_own_first_and_last_lines():
    long = "\n".join(f"listing line {i:03d} here" for i in range(100))
    hits = "\n".join(f"grep hit number {i:02d}" for i in range(20))
    assert "grep hit number 00" in copy_targets(["show it", long, hits]).lines


def _slot_walk(message: str, targets) -> list[bytes]:
    """Byte by byte through ``message`` (JSON-escaped) as the SHOWN slot sees it: the bytes it would refuse."""
    bias, value, refused = CopyBias(BYTES), escape_for_json_string(message), []
    for at in range(len(value) + 1):
        _, kept, restrict = bias.field_bonuses(value[:at], targets, "message", written=b'{"action": "MSG", "message": "')
        nxt = value[at : at + 1] or b'"'
        if nxt not in _byte_allowed(kept, restrict):
            refused.append(value[: at + 1])
    return refused


def test_a_stated_output_lists_the_last_outputs_lines_whole_in_order_then_ends():
    bias = CopyBias(BYTES)
    targets = copy_targets(["what files are here?", "app.py\nnotes.txt\n[exit code 0]"]).escaped()
    assert targets.shown == (b"app.py", b"notes.txt")

    def allowed(value: bytes) -> set[bytes]:
        _, kept, restrict = bias.field_bonuses(value, targets, "message", written=b'{"action": "MSG", "message": "')
        return _byte_allowed(kept, restrict)

    assert allowed(b"It shows") == {b":"}
    # a short output is stated whole, as training states it: every line from the first, in order
    assert allowed(b"It shows: ") == {b"a"}  # no invented name ("torch.py") can start, nor a later line
    assert allowed(b"It shows: app") == {b"."}
    assert allowed(b"It shows: app.py") == {b","}  # not the end: notes.txt was printed too
    assert allowed(b"It shows: app.py, ") == {b"n"}
    assert allowed(b"It shows: app.py, notes.txt") == {b"."}
    assert allowed(b"It shows: app.py, notes.txt.") == {b'"'}
    assert allowed(b"It shows: notes.txt") == set()  # a line left out is refused
    assert allowed(b"It shows: app.py, notes.txt, ") == set()  # past the last line (one long token): refused, no error
    assert len(allowed(b"It says")) > 200  # any other message is the model's


def test_a_long_output_is_never_stated_whole_so_which_lines_is_the_models():
    bias = CopyBias(BYTES)
    lines = [f"file_{i:02d}.py" for i in range(SHOWN_LINES + 1)]  # one line more than training states
    targets = copy_targets(["what files are here?", "\n".join(lines) + "\n[exit code 0]"])
    assert not targets.shown_whole and copy_targets(["ls", "\n".join(lines[:-1]) + "\n[exit code 0]"]).shown_whole

    def allowed(value: bytes) -> set[bytes]:
        _, kept, restrict = bias.field_bonuses(value, targets.escaped(), "message", written=b'{"action": "MSG", "message": "')
        return _byte_allowed(kept, restrict)

    assert allowed(b"It shows: ") == {b"f"}
    assert allowed(b"It shows: file_00.py") == {b",", b"."}  # another line, or the end
    assert allowed(b"It shows: file_03.py") == {b",", b"."}  # any line may come first, in the output's order
    assert allowed(b"It shows: file_03.py, file_0") == set(b"456789"[i : i + 1] for i in range(6))


def test_a_closing_training_writes_is_what_decoding_allows_and_nothing_printed_closes_with_the_status():
    from rusty_hf.data.terminal.dataset import closing_message

    outputs = ["a.py\nb.py\n[exit code 0]", "# Title.\n[exit code 0]", 'id, name\n1, "ann"\n[exit code 0]',
               "  3 notes.txt\n[exit code 0]", "x\nx\n[exit code 0]"]  # fmt: skip
    for output in outputs:
        message = closing_message(output, states_output=True)
        assert message.startswith("It shows: ")
        assert _slot_walk(message, copy_targets(["list them", output]).escaped()) == []
    # a success with no line to state (an EDIT that wrote, no output) closes with "Done."
    for output in ["wrote notes.txt (12 chars)", "[exit code 0, no output]"]:
        targets = copy_targets(["do it", output]).escaped()
        assert targets.shown == () and closing_message(output) == "Done."
        assert _slot_walk("Done.", targets) == [] and _slot_walk("It shows: boom.", targets)[0] == b"I"
    # after a failure the message is the model's (the failing test is in the output), but it states no lines
    for output, status in [("FAIL: test_x\n[exit code 1]", "Failed: exit code 1."), ("...\n[timed out after 30 s]", "Timed out.")]:
        targets = copy_targets(["do it", output]).escaped()
        assert targets.shown == () and targets.status is None
        assert _slot_walk(status, targets) == []
        assert (_slot_walk("The failing test is test_x.", targets) == []) == ("test_x" in output)  # named if printed
        assert _slot_walk("It shows: x.", targets)[0] == b"It"


def test_training_writes_non_ascii_text_as_the_copy_slot_matches_it():
    from rusty_hf.data.terminal.dataset import closing_message
    from rusty_hf.protocol.actions import Action, action_json

    output = "café.txt\nnotes.txt\n[exit code 0]"
    closing = action_json({"action": "MSG", "message": closing_message(output, states_output=True)})
    assert escape_for_json_string("It shows: café.txt, notes.txt.") in closing.encode()  # not "caf\\u00e9"
    assert _slot_walk("It shows: café.txt, notes.txt.", copy_targets(["ls", output]).escaped()) == []
    assert Action("CMD", command="cat café.txt").to_json() == '{"action": "CMD", "command": "cat café.txt"}'


def test_a_closing_after_a_command_states_only_numbers_the_request_or_output_holds():
    targets = copy_targets(["how many lines in notes.txt?", "3 notes.txt\n[exit code 0]"]).escaped()
    assert _slot_walk("3 lines.", targets) == [] and _slot_walk("notes.txt has 3 lines.", targets) == []
    assert _slot_walk("8 lines.", targets)[0] == b"8"
    assert _slot_walk("13 lines.", targets)[0] == b"1"
    assert _slot_walk("34 lines.", targets)[0] == b"34"  # a number is whole where it ends: "3" then "4" is another
    ls = copy_targets(["what files are here?", "app.py\nnotes2.txt\n[exit code 0]"]).escaped()
    assert _slot_walk("6 Python files.", ls)[0] == b"6"
    assert _slot_walk("Done. notes2.txt is there.", ls) == []  # digits inside a name are the name's
    assert _slot_walk("It has 6 lines.", copy_targets(["what is a loop?"]).escaped()) == []  # no command: the model's
    version = copy_targets(["which python?", "Python 3.11.2\n[exit code 0]"]).escaped()
    assert _slot_walk("Python 3.11.2 here.", version) == [] and _slot_walk("Python 3.12.", version)[0] == b"Python 3.12"

def test_a_closing_after_a_command_names_only_files_the_conversation_or_work_dir_holds():
    ls = copy_targets(["what files are here?", "app.py\nnotes.txt\n[exit code 0]"], ["app.py", "notes.txt", "src/", "src/a.py"])
    ls = ls.escaped()
    assert _slot_walk("Modified: notes.txt.", ls) == [] and _slot_walk("See src/a.py, app.py.", ls) == []
    assert _slot_walk("New, untracked: melon.txt.", ls)[0] == b"New, untracked: melon.t"
    assert _slot_walk("Done. All good.", ls) == []  # a sentence's dot makes no name
    # a result that is neither (an EDIT the work dir refused) leaves the message to the model
    assert _slot_walk("Could not write it.", copy_targets(["do it", "could not write ../x: outside"]).escaped()) == []
    assert copy_targets(["only a request"]).shown is None  # no command ran: a first reply's message is the model's
    assert _slot_walk("It is a loop.", copy_targets(["what is a loop?"]).escaped()) == []


def test_the_processor_lets_a_stated_output_hold_only_the_outputs_lines(tokenizer):
    table = token_table(tokenizer)
    conversation = ["how many lines in harbor_notes.txt?", "3 harbor_notes.txt\n[exit code 0]"]
    processor = ProtocolLogitsProcessor(tokenizer, copy_names=[copy_targets(conversation)])
    ids = torch.tensor([[1, 2, 3] + tokenizer(' {"action": "MSG", "message": "It shows: ', add_special_tokens=False)["input_ids"]])
    for end in range(3, ids.shape[1] + 1):
        out = processor(ids[:, :end], torch.zeros(1, len(table.token_bytes)))
    allowed = {table.token_bytes[i] for i in torch.isfinite(out[0]).nonzero()[:, 0].tolist()}
    assert allowed and all(b"3 harbor_notes.txt".startswith(t) for t in allowed)
