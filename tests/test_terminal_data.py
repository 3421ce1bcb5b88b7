"""Terminal requests: the catalogue's size, the held-out split's walls, and checks judged by execution."""

import json
import os
import re
from collections import Counter

import pytest

from rusty_hf.data.dialogs import synthetic_dialogs
from rusty_hf.data.sft_data import task_dialogs
from rusty_hf.data.terminal.checks import Check, judge
from rusty_hf.data.terminal.dataset import (
    CLOSING_INTENTS,
    ASKED_FIRST,
    NAMES_NO_FILE,
    OUTPUT_FIXTURES,
    PARTS,
    READS_ANY_REPO,
    RUST_REPO_SHARE,
    REFERRING,
    REFERRING_FIRST,
    WRITE_INTENTS,
    answered_in_words,
    evolved_fixture,
    heldout_requests,
    says_a_suite_request,
    session_messages,
    sft_messages,
    training_requests,
    training_sessions,
)
from rusty_hf.agent.workspace import Workspace
from rusty_hf.data.terminal.checks import MAX_OBSERVATION_CHARS
from rusty_hf.data.terminal.fixtures import copy_fixture, materialize, python_fixture
from rusty_hf.data.terminal.run_checks import changes_stated
from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.intents import HELD_OUT_INTENTS
from rusty_hf.data.terminal.values import ADJECTIVES, ValuePool, HELD_OUT_WORDS, NOUNS, pool_word, word_split, words_of
from rusty_hf.protocol import Action

TRAIN_N = 3000


@pytest.fixture(scope="module")
def training():
    return training_requests(TRAIN_N, seed=0)


@pytest.fixture(scope="module")
def heldout():
    return heldout_requests(seed=0)


@pytest.fixture(scope="module")
def fixture_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("terminal_fixtures")


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip(" ?!.")


def test_the_catalogue_covers_the_issue(training):
    intents = all_intents()
    assert len(intents) >= 25
    assert sum(i.multi_turn for i in intents.values()) >= 5
    assert all(len(i.phrasings) >= 4 for i in intents.values())
    assert len(intents) >= 60 and len(intents) - len(HELD_OUT_INTENTS) >= 57  # issue 37: at least 60 intents
    assert 3 <= len(HELD_OUT_INTENTS) <= 4 and HELD_OUT_INTENTS <= set(intents)
    trained = {r.intent for r in training}
    assert trained == set(intents) - HELD_OUT_INTENTS  # every trained intent shows up, no held-out one


def test_the_heldout_split_has_every_part_and_300_requests(heldout):
    assert len(heldout) >= 300
    assert {r.part for r in heldout} == set(PARTS)
    assert all(r.case.args for r in heldout if r.part == "new_values")


def test_heldout_templates_never_train_any_intent():
    """A template held out for one intent must not be a training template of another (normalised text)."""
    train = {_normal(t) for i in all_intents().values() for t in i.templates("train")}
    test = {_normal(t) for i in all_intents().values() for t in i.templates("test")}
    assert not train & test


def _bare(text: str) -> str:
    """A request without the surface ``render`` adds around a phrasing (polite prefix and suffix, case)."""
    text = _normal(text)
    for prefix in ("please ", "hey, ", "quick: ", "pls ", "ok "):
        text = text.removeprefix(prefix)
    for suffix in (" please", " thx", " now"):
        text = text.removesuffix(suffix)
    return text.strip(" ?!.")


@pytest.mark.slow
def test_no_heldout_phrasing_or_value_reaches_training_data(training, heldout, fixture_cache):
    """The leak guard: no held-out phrasing or argument value appears in any SFT or RL text (terminal
    requests with their actions and command outputs, synthetic dialogs, tasks), and no held-out word
    appears in any terminal training text at all."""
    terminal = [m["content"] for r in training[:800] for m in sft_messages(r, fixture_cache if r.multi_turn else None)]
    terminal += [m["content"] for s in training_sessions(30, seed=0, refer_share=0.5) for m in session_messages(s, fixture_cache)]
    others = [m["content"] for d in synthetic_dialogs(2048, seed=0) + task_dialogs(("python", "rust")) for m in d]
    said = {_bare(t) for t in terminal + others}
    fixed = {_bare(t) for i in all_intents().values() for t in i.templates("test") if "{" not in t}
    assert not fixed & said, sorted(fixed & said)[:5]  # a held-out phrasing without slots, said in training
    asked = {_bare(r.text) for r in heldout}
    assert not asked & said, sorted(asked & said)[:5]  # a held-out request, word for word
    new_args = {a for r in heldout if r.part == "new_values" for a in r.case.args}
    # a whole value, as a word of its own ('young' in 'youngest' is no leak; 'cherry' in 'cherry-pick' is)
    said_as_word = [a for a in new_args for t in terminal + others if re.search(rf"(?<![A-Za-z0-9_]){re.escape(a)}(?![A-Za-z0-9_])", t)]
    assert new_args and not said_as_word, said_as_word[:5]
    held_words = {w for a in new_args for w in map(pool_word, words_of(a)) if w is not None and word_split(w) == "test"}
    assert held_words & HELD_OUT_WORDS
    seen = {pool_word(w) for t in terminal for w in words_of(t)}
    assert not held_words & seen, sorted(held_words & seen)
    # a noun or adjective is a whole value on its own (a folder, a word to write): none held out is in any text
    bare = {w for w in NOUNS + ADJECTIVES if word_split(w) == "test"}
    said_words = {pool_word(w) for t in terminal + others for w in words_of(t)}
    assert not bare & said_words, sorted(bare & said_words)


def test_training_values_are_training_words(training):
    for request in training:
        for arg in request.case.args:
            assert all(word_split(w) == "train" for w in map(pool_word, words_of(arg)) if w is not None), arg


def _one(requests, intent: str):
    return next(r for r in requests if r.intent == intent)


def test_a_wrong_command_fails_a_count(training, fixture_cache):
    request = _one(training, "count_lines")
    root = materialize(request.fixture, fixture_cache)
    path = request.case.slots["file"]
    assert judge(request.case.first, Action("CMD", command=f"wc -l {path}"), root).ok
    assert not judge(request.case.first, Action("CMD", command=f"wc -c {path}"), root).ok
    assert not judge(request.case.first, Action("MSG", message="12"), root).ok


def test_lines_of_a_file_holding_a_word_are_shown_and_no_other(training, fixture_cache):
    """`grep_file`: the word's lines of that file pass; the whole file, `grep -v` (the other lines), a tree-wide
    search and the bare word as a message do not."""
    request = _one(training, "grep_file")
    root = materialize(request.fixture, fixture_cache)
    path, word = request.case.slots["file"], request.case.slots["text"]
    assert f"'{word}'" in request.text or f'"{word}"' in request.text
    assert request.case.actions[0]["command"] == f'grep "{word}" {path}'
    check = request.case.first
    assert judge(check, Action("CMD", command=f"grep '{word}' {path}"), root).ok
    assert judge(check, Action("CMD", command=f"grep -n {word} {path}"), root).ok
    assert not judge(check, Action("CMD", command=f"cat {path}"), root).ok
    assert not judge(check, Action("CMD", command=f"grep -v '{word}' {path}"), root).ok
    assert not judge(check, Action("CMD", command="grep -rn . ."), root).ok
    assert not judge(check, Action("MSG", message=word), root).ok


def test_a_script_run_with_arguments_prints_them_in_order(training, fixture_cache):
    """`run_script_args`: the script run with the request's arguments passes (quoted or not); without them, with
    them in another order, or its source shown, it does not."""
    request = next(r for r in training if r.intent == "run_script_args" and " " in r.case.slots["args"])
    root = materialize(request.fixture, fixture_cache)
    script, args = request.case.slots["script"], request.case.slots["args"].split()
    assert request.case.actions[0]["command"] == f"python3 {script} {' '.join(args)}"
    check = request.case.first
    assert judge(check, Action("CMD", command=f"python3 {script} {' '.join(args)}"), root).ok
    assert judge(check, Action("CMD", command=f"python3 {script} " + " ".join(f"'{a}'" for a in args)), root).ok
    assert not judge(check, Action("CMD", command=f"python3 {script}"), root).ok
    assert not judge(check, Action("CMD", command=f"python3 {script} {' '.join(reversed(args))}"), root).ok
    assert not judge(check, Action("CMD", command=f"cat {script}"), root).ok


def test_what_users_ask_first_is_drawn_twice_as_often(training):
    counts = Counter(r.intent for r in training if not all_intents()[r.intent].multi_turn)
    first = [counts[k] for k in ASKED_FIRST]
    others = [n for k, n in counts.items() if k not in ASKED_FIRST]
    assert 1.6 < (sum(first) / len(first)) / (sum(others) / len(others)) < 2.4


def test_rows_that_carry_an_output_spread_over_many_fixtures(training):
    """Multi-turn rows and sessions draw from `OUTPUT_FIXTURES` work dirs, not the 64 anchors: on the anchors alone
    each came back ~170 times, and a closing could state an anchor's name instead of what the output showed."""
    multi = {r.fixture.key for r in training if r.multi_turn}
    sessions = {s[0].fixture.key for s in training_sessions(300, seed=2)}
    assert OUTPUT_FIXTURES >= 512 and len(multi) > 200 and len(sessions) > 200
    untracked = Counter(r.fixture.facts["untracked"][0] for r in training if r.intent == "what_changed")
    assert max(untracked.values()) <= 4  # no name a closing could learn by heart


def test_file_reading_intents_run_on_rust_crates_too_and_their_references_pass_there(training, fixture_cache):
    """Show, head, tail and count a `.rs` or `Cargo.toml` in a crate, not only files of a Python package: drawn on
    Python fixtures alone, every `.rs` in training was built (`cargo ...`) and never shown."""
    on_rust = [r for r in training if r.intent in READS_ANY_REPO and r.fixture.kind == "rust"]
    share = len(on_rust) / sum(r.intent in READS_ANY_REPO for r in training)
    assert abs(share - RUST_REPO_SHARE) < 0.08
    assert {r.intent for r in on_rust} == set(READS_ANY_REPO)
    catalogue = all_intents()
    assert all(r.fixture.kind == catalogue[r.intent].fixture for r in training if r.intent not in READS_ANY_REPO)
    shown = {r.case.slots.get("file", "").rsplit(".", 1)[-1] for r in on_rust}
    assert {"rs", "toml"} <= shown
    judged = {}
    for request in on_rust:  # one of each intent: its reference passes its own check on the crate
        if request.intent not in judged:
            root = materialize(request.fixture, fixture_cache)
            judged[request.intent] = judge(request.case.first, Action(**request.case.actions[0]), root).ok
    assert judged == dict.fromkeys(READS_ANY_REPO, True)


def test_a_builder_change_leaves_the_other_intents_heldout_requests_as_they_were(heldout, monkeypatch):
    """Each intent draws its held-out requests from its own stream: one builder that draws more (here append_line)
    moves no other intent's requests, so a change to one intent keeps the rest of the split comparable."""
    import dataclasses

    from rusty_hf.data.terminal import catalog

    intent = catalog.INTENTS["append_line"]

    def drawing_more(fx, rng, pool):
        rng.random(), pool.rng.random()
        return intent.build(fx, rng, pool)

    monkeypatch.setitem(catalog.INTENTS, "append_line", dataclasses.replace(intent, build=drawing_more))
    after = heldout_requests(seed=0)
    same = [(r.intent, r.part, r.text, r.case.actions) for r in heldout if r.intent != "append_line"]
    assert [(r.intent, r.part, r.text, r.case.actions) for r in after if r.intent != "append_line"] == same
    moved = [r.text for r in after if r.intent == "append_line"] != [r.text for r in heldout if r.intent == "append_line"]
    assert moved


def test_a_file_check_sees_every_change(training, fixture_cache):
    request = _one(training, "create_file")
    root = materialize(request.fixture, fixture_cache)
    path, text = request.case.slots["file"], request.case.slots["text"]
    write = f"mkdir -p $(dirname {path}) && echo '{text}' > {path}"  # a new file may go into a new folder
    assert judge(request.case.first, Action("CMD", command=write), root).ok  # any action that does it
    assert not judge(request.case.first, Action("EDIT", path=path, content="something else\n"), root).ok
    clobber = Action("CMD", command=f"{write} && rm README.md")
    assert not judge(request.case.first, clobber, root).ok  # the right file, but something else changed


def test_a_created_script_is_judged_by_running_it(training, fixture_cache):
    request = _one(training, "create_script")
    root = materialize(request.fixture, fixture_cache)
    path, word = request.case.slots["file"], request.case.slots["word"]
    assert judge(request.case.first, Action("EDIT", path=path, content=f"print('{word}')\n"), root).ok
    assert not judge(request.case.first, Action("EDIT", path=path, content=f"# print('{word}')\n"), root).ok


def test_a_script_may_print_a_line_of_several_words_which_the_request_quotes(training):
    """Half the scripts print a line of several words, typed in quotes even where the phrasing leaves the slot bare;
    the printed text is the line, whole."""
    scripts = [r for r in training if r.intent == "create_script"]
    spaced = [r for r in scripts if " " in r.case.slots["word"]]
    assert 0.3 < len(spaced) / len(scripts) < 0.7
    for r in spaced:
        text = r.case.slots["word"]
        assert f"'{text}'" in r.text or f'"{text}"' in r.text, r.text
        assert r.case.actions[0]["content"] == f"print({text!r})\n" and r.case.first.run[1] == text
    assert len({r.case.slots["word"] for r in scripts}) > 0.6 * len(scripts)  # copied, not remembered


def test_quoting_a_spaced_value_draws_nothing_from_the_callers_stream():
    """The quotes around a line of several words are decided by the line: the requests drawn after it stay the ones
    drawn before the change (the held-out split among them)."""
    import random

    from rusty_hf.data.terminal.intents import render

    one, two = random.Random(4), random.Random(4)
    assert render("make {file} print {word}", {"file": "a.py", "word": "sturdy report done"}, one).count("sturdy") == 1
    render("make {file} print {word}", {"file": "a.py", "word": "sturdy"}, two)
    assert one.random() == two.random()


def test_a_msg_check_wants_the_fact(training):
    check = Check("msg", all_of=(("3",),))
    assert judge(check, Action("MSG", message="3 Python files."), None).ok
    assert not judge(check, Action("MSG", message="13 Python files."), None).ok
    assert judge(Check("msg", question=True), Action("MSG", message="Which file?"), None).ok
    assert not judge(Check("msg", question=True), Action("MSG", message="Done."), None).ok


def test_checks_round_trip_through_json():
    check = Check("output", all_of=(("a", "b"), ("c",)), none_of=("d",))
    assert Check.from_json(check.to_json()) == check
    files = Check("files", files=(("x.txt", "hi\n"), ("gone.txt", None)))
    assert Check.from_json(files.to_json()) == files


def test_multi_turn_dialogs_carry_the_real_output(training, fixture_cache):
    request = next(r for r in training if r.intent == "which_test_fails")
    messages = sft_messages(request, fixture_cache)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert request.fixture.facts["failing_test"] in messages[3]["content"]  # unittest's own report
    assert json.loads(messages[4]["content"])["action"] == "MSG"


def test_closing_rows_end_a_single_action_with_its_status(fixture_cache):
    plain = training_requests(400, seed=3)
    rows = training_requests(400, seed=3, closing_share=0.5)
    closing = [r for r in rows if r.closing]
    assert closing and all(not r.multi_turn and (r.fixture.kind == "python" or r.intent in READS_ANY_REPO) for r in closing)
    assert {r.intent for r in closing} <= CLOSING_INTENTS
    assert {r.case.actions[0]["action"] for r in closing} == {"CMD", "EDIT"}  # never after a MSG
    assert not any(r.closing for r in plain)
    cmd = next(r for r in closing if r.case.actions[0]["action"] == "CMD" and r.intent == "show_file")
    messages = sft_messages(cmd, fixture_cache)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant"]
    path = cmd.case.actions[0]["command"].split()[-1]
    assert messages[3]["content"].startswith((materialize(cmd.fixture, fixture_cache) / path).read_text().rstrip("\n")[:40])
    assert messages[3]["content"].endswith("[exit code 0]")  # the terminal's real result
    assert json.loads(messages[4]["content"]) == {"action": "MSG", "message": "Done."}
    edit = next(r for r in closing if r.case.actions[0]["action"] == "EDIT")
    messages = sft_messages(edit, fixture_cache)
    assert messages[3] == {"role": "tool", "name": "EDIT", "content": f"wrote {edit.case.actions[0]['path']} "
                           f"({len(edit.case.actions[0]['content'])} chars)"}  # fmt: skip


def test_no_closing_row_runs_what_a_multi_turn_intent_runs_to_answer():
    """A "Done." after `wc -l` would teach "how long is X? just tell me" to say "Done." too."""

    def program(command: str) -> str:
        words = command.split()
        return " ".join(words[:2]) if words[0] in ("git", "cargo") else words[0]

    rows = training_requests(1500, seed=5)
    answering = {program(r.case.actions[0]["command"]) for r in rows if r.multi_turn}
    for r in rows:
        if r.intent in CLOSING_INTENTS and r.case.actions[0]["action"] == "CMD":
            assert program(r.case.actions[0]["command"]) not in answering, (r.intent, r.case.actions[0])
    assert CLOSING_INTENTS <= set(all_intents()) and not CLOSING_INTENTS & HELD_OUT_INTENTS


def test_the_closing_message_states_the_status():
    from rusty_hf.data.terminal.dataset import closing_message

    assert closing_message("a.py\nb.py\n[exit code 0]") == "Done."
    assert closing_message("[exit code 0, no output]") == "Done."
    assert closing_message("wrote notes.txt (12 chars)") == "Done."
    assert closing_message("FAILED (failures=1)\n[exit code 1]") == "Failed: exit code 1."
    # states_output: a short output is stated, whole; a long one, an EDIT and a failure keep the status
    assert closing_message("a.py\nb.py\n[exit code 0]", states_output=True) == "It shows: a.py, b.py."
    assert closing_message("# Title.\n[exit code 0]", states_output=True) == "It shows: # Title."
    assert closing_message("x\n" * 11 + "[exit code 0]", states_output=True) == "Done."
    assert closing_message("wrote notes.txt (12 chars)", states_output=True) == "Done."
    assert closing_message("[exit code 0, no output]", states_output=True) == "Done."
    assert closing_message("FAILED (failures=1)\n[exit code 1]", states_output=True) == "Failed: exit code 1."
    assert closing_message("...\n[timed out]") == "Timed out."
    # a line that only looks like a status inside the output is not the status
    assert closing_message("[exit code 3]\nmore output\n[exit code 0]") == "Done."


def test_sessions_that_state_outputs_answer_every_command_with_what_it_showed(fixture_cache):
    """With the closings that state an output, a session's earlier turn may be any command that leaves the work dir
    as it is; a long output is closed by the facts its case names ("On branch main. Modified: notes.txt. ...")."""
    sessions = training_sessions(120, seed=2, states_output=True)
    earlier = [r for s in sessions for r in s[:-1]]
    assert {"git_status", "count_lines", "run_py_tests"} <= {r.intent for r in earlier}
    assert not {"git_status", "count_lines"} & {r.intent for s in training_sessions(120, seed=2) for r in s[:-1]}
    status = next(r for r in earlier if r.intent == "git_status")
    messages = sft_messages(status, fixture_cache, states_output=True)
    facts = status.fixture.facts
    assert len(messages[3]["content"].splitlines()) > 10  # too long to state whole: "Done." without the case's closing
    assert json.loads(messages[4]["content"])["message"] == (
        f"On branch main. Modified: {', '.join(facts['modified'])}. New, untracked: {', '.join(facts['untracked'])}.")
    assert all(name in messages[3]["content"] for name in facts["modified"] + facts["untracked"])  # what it showed
    assert json.loads(sft_messages(status, fixture_cache)[4]["content"])["message"] == "Done."  # the status without
    # a command a multi-turn intent runs too closes as that intent does: `wc -l` says "3 lines." as `how_long` does
    count = next(r for r in earlier if r.intent == "count_lines")
    n = count.fixture.tree_files()[count.case.args[0]].count("\n")
    assert json.loads(sft_messages(count, fixture_cache, states_output=True)[4]["content"])["message"] == f"{n} lines."


def test_rows_rebuild_their_fixture(heldout):
    from rusty_hf.data.terminal.dataset import fixture_from_row

    request = heldout[0]
    assert fixture_from_row(request.row()["fixture"]).key == request.fixture.key


def test_threads_asking_for_one_run_at_once_all_get_that_run(training, tmp_path):
    """A command's output need not repeat (`unittest` prints its time): one run per (fixture, command), shared."""
    from concurrent.futures import ThreadPoolExecutor

    from rusty_hf.data.terminal.checks import RUNS

    root = materialize(training[0].fixture, tmp_path)
    command = "python3 -c 'import time; print(time.time_ns())'"
    with ThreadPoolExecutor(max_workers=6) as pool:
        outputs = list(pool.map(lambda _: RUNS.run(root, command, 30)[1], range(6)))
    assert len(set(outputs)) == 1 and outputs[0].strip().isdigit()


def test_a_reference_run_shows_the_same_on_every_build_of_the_fixture(training, tmp_path):
    """File times come from the fixture's history and the run's uid has a name: two builds, one listing."""
    from rusty_hf.data.terminal.checks import RUNS
    from rusty_hf.data.terminal.fixtures import file_times

    fixture = training[0].fixture
    first, second = materialize(fixture, tmp_path / "a"), materialize(fixture, tmp_path / "b")
    command = "ls -l; ls -ld . .git; ls -lR */; git log -1 --format=%cd"  # not ..: the sandbox makes it at the start
    shown = [RUNS.run(root, command, 30)[0] for root in (first, second)]
    assert shown[0] == shown[1] and "sandbox" in shown[0] and "2026" in shown[0]
    times = file_times(fixture)
    assert all(int((first / path).stat().st_mtime) == when for path, when in times.items())
    assert times["notes.txt"] > times["README.md"] == 1767261600  # edited after the first commit (2026-01-01)


def test_what_a_run_shows_next_has_no_timing_while_the_checks_read_the_output_as_printed(training, tmp_path):
    """Durations a tool prints about itself are the one part of a reference run that changes from run to run:
    the result text the next turn (and an SFT row) shows writes them as zero; the checks see them as printed."""
    from rusty_hf.data.terminal.checks import RUNS, steady

    root = materialize(training[0].fixture, tmp_path)
    observation, output, _ = RUNS.run(root, "echo 'Ran 3 tests in 0.041s'; echo 'done in 12.5s, in 3s'", 30)
    assert "Ran 3 tests in 0.041s" in output and "Ran 3 tests in 0.000s" in observation
    assert "done in 0.0s, in 3s" in observation
    assert steady("Finished `dev` profile in 1.27s\n1 passed in 0.02s") == "Finished `dev` profile in 0.00s\n1 passed in 0.00s"


def test_a_run_that_writes_shows_its_files_after_and_leaves_the_fixture_as_it_was(training, tmp_path):
    """Reads run on the fixture itself (a trial writes nothing there); a command that writes is applied to a copy."""
    from rusty_hf.data.terminal.checks import RUNS, fixture_files

    root = materialize(training[0].fixture, tmp_path)
    before = fixture_files(root)
    observation, output, (files, folders) = RUNS.run(root, "echo made > made.txt && mkdir -p new/deep && ls", 30)
    assert "made.txt" in output.split() and files["made.txt"] == b"made\n" and {"new", "new/deep"} <= folders
    assert files.keys() - {"made.txt"} == before.keys()
    _, _, (same, _) = RUNS.run(root, "ls -a", 30)
    assert fixture_files(root) == before == same and not (root / "made.txt").exists() and not (root / "new").exists()


def test_a_fixture_has_the_commit_hashes_of_commits_made_one_by_one(tmp_path):
    """`materialize` writes the history with one `git fast-import`; `git commit` per commit, as a user makes them,
    gives the same hashes, and `git status` shows the same uncommitted changes."""
    import subprocess

    from rusty_hf.data.terminal.fixtures import GIT_ENV, Fixture, rust_fixture

    untidy = Fixture("python", (("Initial commit  ", {"a b.txt": "x\n", "é/ü.py": "print('é')\n", "empty": ""}),
                                ("\nFix the parser\t\n\n\n  \nMore detail.  \n\n", {"a b.txt": "y\n"})), {"new.txt": "n"}, {})
    for n, fixture in enumerate([python_fixture(ValuePool("train", seed=11)), rust_fixture(ValuePool("train", seed=12)),
                                 untidy]):  # fmt: skip
        root = materialize(fixture, tmp_path / "cache")
        plain = tmp_path / f"plain{n}"
        env = {**os.environ, **GIT_ENV}
        git = lambda where, *args, **kw: subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True,
                                                        text=True, env={**env, **kw}).stdout  # fmt: skip
        plain.mkdir()
        git(plain, "-c", "init.defaultBranch=main", "init", "-q", "--template=")
        for day, (message, changes) in enumerate(fixture.commits, start=1):
            for name, content in changes.items():
                (plain / name).parent.mkdir(parents=True, exist_ok=True)
                (plain / name).write_text(content)
            git(plain, "add", "-A")
            date = f"2026-01-{day:02d}T10:00:00+00:00"
            git(plain, "commit", "-q", "-m", message, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        for name, content in fixture.dirty.items():
            (plain / name).parent.mkdir(parents=True, exist_ok=True)
            (plain / name).write_text(content)
        for what in (["log", "--format=%H %ad %an %s"], ["status", "--porcelain"], ["diff"]):
            assert git(root, *what) == git(plain, *what), what
        assert [p.name for p in (root / ".git/objects").iterdir() if p.name not in ("info", "pack")] == []  # one pack


def test_one_output_computed_by_many_threads_at_once_is_saved_once(training, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from rusty_hf.data.terminal.dataset import observation

    request = next(r for r in training if r.multi_turn)
    with ThreadPoolExecutor(max_workers=8) as pool:
        texts = list(pool.map(lambda _: observation(request, tmp_path), range(8)))
    assert len(set(texts)) == 1 and texts[0]
    assert not list(tmp_path.glob("*.outputs/*.partial"))


def test_no_training_phrasing_holds_a_heldout_pool_word():
    """Every training template, checked whole rather than through a sample of requests: none carries a
    held-out pool word ("great job" would teach 'job', a word of held-out values)."""
    words = {(t, pool_word(w)) for i in all_intents().values() for t in i.templates("train") for w in words_of(t)}
    assert not [t for t, w in words if w is not None and word_split(w) == "test"]


def test_sessions_are_requests_in_a_row_on_one_work_dir(fixture_cache):
    """4-8 training requests on one fixture; each turn but the last answered to its closing MSG; only the last
    may change the work dir, so every earlier reference and stated fact holds on the fixture as built."""
    sessions = training_sessions(200, seed=1)
    assert {len(s) for s in sessions} == {4, 5, 6, 7, 8}
    catalogue = all_intents()
    for session in sessions:
        assert len({r.fixture.key for r in session}) == 1 and session[0].fixture.kind == "python"
        assert all(r.part == "train" and r.intent not in HELD_OUT_INTENTS for r in session)
        assert not any(r.intent in WRITE_INTENTS for r in session[:-1])
        for r in session[:-1]:
            answered = r.multi_turn or r.closing or r.case.actions[0]["action"] == "MSG"
            assert answered and catalogue[r.intent].fixture == "python", r.intent
    assert any(s[-1].intent in WRITE_INTENTS for s in sessions)
    # every intent answered in words (a greeting too) comes up between commands, not only as a session's last turn
    assert set(answered_in_words()) <= {r.intent for s in sessions for r in s[:-1]}
    session = next(s for s in sessions if len(s) == 4 and any(r.closing for r in s))
    messages = session_messages(session, fixture_cache)
    assert [m["role"] for m in messages].count("system") == 1
    users = [i for i, m in enumerate(messages) if m["role"] == "user"]
    assert [messages[i]["content"] for i in users] == [r.text for r in session]
    for before_next in users[1:]:  # every request follows a finished answer
        assert messages[before_next - 1]["role"] == "assistant"
        assert json.loads(messages[before_next - 1]["content"])["action"] == "MSG"
    alone = [sft_messages(r, fixture_cache)[1:] for r in session]
    assert messages[1:] == [m for turn in alone for m in turn]
    assert training_sessions(5, seed=1) == sessions[:5]  # seeded


def test_session_turns_that_refer_back_act_on_the_file_the_turn_before_named(fixture_cache):
    """With ``refer_share``, a turn after one that named a file may act on that file again and call it what a user
    calls it in a conversation ("it", "that file"): the reference names the path, the request does not. Every other
    turn, and every session without such a turn, is what it is without the share; the rows keep the sessions' rules."""
    plain = training_sessions(200, seed=4)
    sessions = training_sessions(200, seed=4, refer_share=0.5)
    referring = []
    for session, before in zip(sessions, plain):
        assert len(session) == len(before) and len({r.fixture.key for r in session}) == 1
        assert not any(r.intent in WRITE_INTENTS for r in session[:-1])
        for k, (turn, was) in enumerate(zip(session, before)):
            if turn.text == was.text:
                assert turn == was
                continue
            referring.append(turn)
            path = session[k - 1].case.slots["file"]
            assert k > 0 and turn.case.slots["file"] == path and path not in turn.text
            assert path in turn.case.actions[0].get("command", "") + turn.case.actions[0].get("path", "")
            phrases = REFERRING_FIRST if turn.text.lower().startswith(tuple(REFERRING_FIRST)) else REFERRING
            assert any(re.search(rf"\b{p}\b", turn.text, re.I) for p in phrases), turn.text
            assert not says_a_suite_request(turn.text)
    assert len(referring) >= 60, len(referring)
    assert {"show_file", "head_file", "file_details"} <= {r.intent for r in referring}
    assert any(r.intent in WRITE_INTENTS for r in referring)  # "add 'x' to the end of it"
    assert training_sessions(200, seed=4, refer_share=0.0) == plain
    messages = session_messages(next(s for s in sessions if any(r in referring for r in s[1:])), fixture_cache)
    assert all(m["content"] for m in messages)


def test_a_session_asks_which_file_only_before_it_has_named_one():
    """A request that needs a file and names none ("cat it") is answered "Which file?" (`NAMES_NO_FILE`) only
    where no earlier turn of the session named one: after one, "it" is that file, and the turn acts on it."""
    sessions = training_sessions(400, seed=0, refer_share=0.3)
    asked = [(session, k) for session in sessions for k, turn in enumerate(session) if turn.intent in NAMES_NO_FILE]
    assert len(asked) >= 20  # still asked where nothing was named yet
    assert sum(any("file" in turn.case.slots for turn in session[:k]) for session, k in asked) == 0


def test_session_turns_on_a_missing_file_run_their_command_and_close_with_the_failure(fixture_cache):
    """With ``missing_share``, a turn that reads a named file may name one the work dir lacks: the request and its
    command name the same missing file, the real run fails, and the turn closes with that failure, not a made-up
    answer (a multi-turn count closes so too). Every other turn stays what it is without the share."""
    plain = training_sessions(120, seed=5)
    sessions = training_sessions(120, seed=5, missing_share=0.3, cache_dir=fixture_cache)
    failing = []
    for session, before in zip(sessions, plain):
        for turn, was in zip(session, before):
            if turn.text == was.text:
                assert turn == was
                continue
            failing.append((session, turn))
            missing = turn.case.slots["file"]
            assert missing != was.case.slots["file"] and missing in turn.text
            assert missing not in turn.fixture.tree_files() and missing in turn.case.actions[0]["command"]
            assert turn.closing and not turn.multi_turn and len(turn.case.actions) == 1
    assert len(failing) >= 20 and {"show_file", "how_long"} <= {t.intent for _, t in failing}
    session, turn = failing[0]
    messages = session_messages(session, fixture_cache, states_output=True)
    at = [m["content"] for m in messages].index(turn.text)
    assert "No such file or directory" in messages[at + 2]["content"]
    assert json.loads(messages[at + 3]["content"])["message"].startswith("Failed: exit code ")
    with pytest.raises(ValueError, match="cache_dir"):
        training_sessions(2, seed=5, missing_share=0.3)


def test_sessions_that_go_on_after_a_write_show_what_a_real_session_shows(fixture_cache, tmp_path):
    """A session whose earlier turn writes: played action by action in one real work dir (as `rusty-terminal` plays
    it), every command shows what its training row says it showed, and every turn after the write is drawn on the
    work dir as the write left it."""
    plain = training_sessions(24, seed=3, states_output=True)
    sessions = training_sessions(24, seed=3, states_output=True, write_share=1.0, cache_dir=fixture_cache)
    assert training_sessions(24, seed=3, states_output=True, write_share=0.0) == plain  # no write share: as before
    going_on = [s for s in sessions if any(r.intent in WRITE_INTENTS for r in s[:-1])]
    assert len(going_on) >= 18
    timing = re.compile(r"in \d+\.\d+s")  # unittest's time
    turns_after = 0
    for n, session in enumerate(going_on[:8]):
        k = next(i for i, r in enumerate(session) if r.intent in WRITE_INTENTS)
        assert len({r.fixture.key for r in session[: k + 1]}) == 1
        assert len({r.fixture.key for r in session[k + 1:]}) <= 1 and session[-1].fixture.key != session[0].fixture.key
        turns_after += len(session) - k - 1
        ws = Workspace(copy_fixture(materialize(session[0].fixture, fixture_cache), tmp_path / f"w{n}"))
        tools = [m["content"] for m in session_messages(session, fixture_cache, True) if m["role"] == "tool"]
        played = []
        for request in session:
            action = request.case.actions[0]
            if action["action"] == "CMD":
                played.append(ws.run(action["command"]).describe(MAX_OBSERVATION_CHARS))
            elif action["action"] == "EDIT":
                ws.write_file(action["path"], action["content"])
                played.append(f"wrote {action['path']} ({len(action['content'])} chars)")
        assert len(played) - len(tools) in (0, 1)  # the last turn may stop at its action: no result shown
        assert [timing.sub("", t) for t in played[: len(tools)]] == [timing.sub("", t) for t in tools]
    assert turns_after >= 8


def test_an_evolved_fixture_states_what_git_shows():
    start = python_fixture(ValuePool("train", seed=5))
    facts = start.facts
    assert changes_stated(start) == f"Modified: {facts['modified'][0]}. New, untracked: {facts['untracked'][0]}."
    files = {path: text.encode() for path, text in start.tree_files().items()}
    files["README.md"] += b"one more line\n"
    del files[facts["untracked"][0]]
    evolved = evolved_fixture(start, files)
    assert evolved.facts["modified"] == sorted([facts["modified"][0], "README.md"])
    assert evolved.facts["untracked"] == [] and evolved.facts["deleted"] == []
    assert sorted(evolved.facts["added_lines"]) == sorted([facts["added_line"], "one more line"])
    assert "untracked" not in changes_stated(evolved)
    del files[facts["script"]]
    gone = evolved_fixture(start, files)
    assert gone.facts["deleted"] == [facts["script"]] and "added_lines" not in gone.facts  # the diff removes lines
    assert gone.key != evolved.key and facts["script"] not in gone.tree_files()
    assert "Deleted: " + facts["script"] in changes_stated(gone)
    assert evolved_fixture(start, {p: t.encode() for p, t in start.tree_files().items()}).key == start.key
    files = {path: text.encode() for path, text in start.tree_files().items()}
    files["hedge/walrus.md"] = files["tests/extra.txt"] = b"x\n"  # a new folder, and a folder git tracks
    untracked = evolved_fixture(start, files).facts["untracked"]
    assert untracked == sorted(["hedge/", "tests/extra.txt", facts["untracked"][0]])  # as `git status` names them


def test_a_fixture_after_a_delete_is_built_without_the_file(tmp_path):
    start = python_fixture(ValuePool("train", seed=6))
    files = {path: text.encode() for path, text in start.tree_files().items() if path != start.facts["script"]}
    root = materialize(evolved_fixture(start, files), tmp_path)
    assert not (root / start.facts["script"]).exists() and (root / "README.md").is_file()


def test_every_explained_topic_is_judged_by_its_own_facts():
    """Each `explain` answer passes its own check and no other topic's answer does (nor an echo of the question);
    no answer states a number (a conversation's closing rules refuse numbers no request or output showed)."""
    from rusty_hf.data.terminal.catalog_talk import TOPICS
    from rusty_hf.data.terminal.checks import numbers

    for topic, (answer, groups) in TOPICS.items():
        check = Check("msg", all_of=groups)
        assert judge(check, Action("MSG", message=answer), None).ok, topic
        assert not numbers(answer), topic
        assert not judge(check, Action("MSG", message=f"No idea what {topic} is."), None).ok, topic
        others = [t for t, (a, _) in TOPICS.items() if t != topic and judge(check, Action("MSG", message=a), None).ok]
        assert not others, (topic, others)
