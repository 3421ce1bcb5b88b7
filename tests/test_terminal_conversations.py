"""The conversation suite: frozen, every reference answer passes its checks on the state the earlier turns
leave, never seen by training, and played turn by turn on a work dir that keeps what each action did."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import torch
import yaml

from rusty_hf.data.corpus import dialog_texts, task_texts
from rusty_hf.data.terminal.blind.conversations import (
    CONVERSATIONS_FILE,
    Session,
    Turn,
    apply_action,
    expected_roots,
    load_conversations,
)
from rusty_hf.data.terminal.blind.rules import build_check
from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.checks import judge
from rusty_hf.data.terminal.dataset import dev_requests, heldout_requests, training_requests
from rusty_hf.data.terminal.dev import DEV_CONVERSATIONS_FILE
from rusty_hf.evaluation import conversations as conv_eval
from rusty_hf.protocol import parse_action
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT
from tests.test_terminal_blind import NUMBER_WORDS, _normal, _template_pattern

ROOT = Path(__file__).resolve().parents[1]
SUITE_SHA256 = "fb23a4802f5f5907c705667b5aafa62b405a851d417143e161823bf2d9e08e69"
MIN_SESSIONS, MIN_TURNS, MAX_TURNS = 20, 5, 8


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("conversation_fixtures")


@pytest.fixture(scope="module")
def sessions(cache) -> dict[str, Session]:
    return load_conversations(cache)


@pytest.fixture(scope="module")
def dev_sessions(cache) -> dict[str, Session]:
    return load_conversations(cache, DEV_CONVERSATIONS_FILE)


def _action(raw: dict):
    return parse_action(json.dumps(raw))


def test_the_suite_file_is_frozen():
    assert hashlib.sha256(CONVERSATIONS_FILE.read_bytes()).hexdigest() == SUITE_SHA256


def test_the_suite_has_sessions_of_five_to_eight_requests(sessions):
    assert len(sessions) >= MIN_SESSIONS
    assert all(MIN_TURNS <= len(s.turns) <= MAX_TURNS for s in sessions.values())
    parts = [t.part for s in sessions.values() for t in s.turns]
    assert parts.count("outside") >= 0.1 * len(parts) and parts.count("catalogue") >= 0.6 * len(parts)
    assert len({s.states[0][0].key for s in sessions.values()}) == 6  # every blind fixture, Python and Rust


@pytest.mark.parametrize("suite", ["sessions", "dev_sessions"])
def test_every_reference_answer_is_done_right_on_the_state_the_earlier_turns_leave(suite, request, cache, tmp_path):
    """Its first action passes the check, and its closing message passes the evaluator's closing verdict (the
    final check, numbers the session showed, no looping phrase), with the outputs the reference actions print:
    in the blind suite and in the readable development sessions."""
    sessions = request.getfixturevalue(suite)
    failures = []
    for sid, session in sessions.items():
        requests, outputs = [], []
        for k, (turn, (_, root)) in enumerate(zip(session.turns, session.states)):
            requests.append(turn.text)
            first = judge(turn.check, _action(turn.reference[0]), root)
            turn_outputs = []
            for j, raw in enumerate(turn.reference[:-1]):
                observation, root = apply_action(_action(raw), root, tmp_path / f"{sid}-{k}-{j}")
                turn_outputs.append(observation)
            outputs += turn_outputs
            closing = conv_eval.closing_verdict(turn.reference[-1]["message"], turn.final or turn.check, root,
                                                conv_eval.shown_numbers(requests, outputs, turn_outputs),
                                                _action(turn.reference[-1]), judge_check=turn.final is not None)  # fmt: skip
            if not (first.ok and closing.ok):
                failures.append((sid, k, first.reason, closing.reason))
    assert failures == []


def _generated_requests() -> str:
    sft = yaml.safe_load((ROOT / "recipes/tiny/sft.yaml").read_text(encoding="utf-8"))
    made = [*training_requests(sft["num_terminal"], seed=sft["dialog_seed"], multi_turn_share=sft["terminal_multi_turn_share"]),
            *heldout_requests(seed=0), *dev_requests(per_intent=6)]  # fmt: skip
    return "\n".join(f" {_normal(r.text)} " for r in made)


def test_no_conversation_text_is_or_sits_inside_a_generated_request_or_a_template(sessions):
    """The blind suite's leak guard, for every turn: not a generated request, not a phrasing template filled
    with its own numbers, not inside a template's fixed words. Failures name session and turn only."""
    generated = _generated_requests()
    templates = [t for intent in all_intents().values() for t in intent.phrasings]
    fixed = "\n".join(f" {_normal(part)} " for t in templates for part in re.split(r"\{\w+\}", t))
    words = [(t, set(_normal(re.sub(r"\{\w+\}", " ", t)).split())) for t in templates]
    leaked = []
    for sid, session in sessions.items():
        for k, turn in enumerate(session.turns):
            text = _normal(turn.text)
            values = {w for w in text.split() if w.isdigit() or w in NUMBER_WORDS} | set(re.findall(r"[\w./-]+", text))
            candidates = [t for t, needed in words if needed <= set(text.split())]
            if (f" {text} " in generated or f" {text} " in fixed
                    or any(_template_pattern(t, values - {""}).fullmatch(text) for t in candidates)):  # fmt: skip
                leaked.append((sid, k))
    assert leaked == []


def test_no_corpus_or_prompt_holds_a_conversation_text(sessions):
    sources = [p.read_text(encoding="utf-8", errors="replace") for folder in ("rusty_hf", "recipes", "tasks", "docs", "space")
               for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".rs", ".md", ".json", ".txt", ".yaml", ".jinja")]  # fmt: skip
    corpus = "\n".join(f" {_normal(t)} " for t in [RUSTY_SYSTEM_PROMPT, *dialog_texts(n=500), *task_texts(), *sources])
    assert [(sid, k) for sid, s in sessions.items() for k, t in enumerate(s.turns)
            if len(_normal(t.text).split()) >= 3 and f" {_normal(t.text)} " in corpus] == []  # fmt: skip


# --- the evaluator, with scripted replies (the model's part is `generate_replies`) -------------------------


def _session(cache) -> Session:
    """Three turns on the first Python fixture: append a line, count the lines (after the append), say thanks."""
    fixture = next(s.states[0][0] for s in load_conversations(cache).values() if s.states[0][0].kind == "python")
    lines = fixture.tree_files()["notes.txt"].count("\n")
    references = [
        ({"action": "CMD", "command": "echo 'call the vet' >> notes.txt"}, {"action": "MSG", "message": "Done."}),
        ({"action": "CMD", "command": "wc -l notes.txt"}, {"action": "MSG", "message": f"{lines + 1} lines."}),
        ({"action": "MSG", "message": "You're welcome."},),
    ]
    states = expected_roots("scripted", fixture, references, cache)
    specs = [({"rule": "files", "append": {"notes.txt": "call the vet"}}, {"rule": "msg"}),
             ({"rule": "count", "files": ["notes.txt"], "measure": "lines"}, {"rule": "msg", "number": str(lines + 1)}),
             ({"rule": "msg"}, None)]  # fmt: skip
    texts = ["add 'call the vet' to notes.txt", "how many lines has it got now?", "thanks!"]
    turns = tuple(Turn(text, "outside:test", ref, build_check(fx, check), build_check(fx, final) if final else None)
                  for text, ref, (check, final), (fx, _) in zip(texts, references, specs, states))  # fmt: skip
    return Session("scripted", turns, tuple(states))


def _scripted(monkeypatch, answers: dict[str, list[str]]):
    """generate_replies answering each request's turn with ``answers[request][i]`` for its i-th reply."""

    def replies(model, tokenizer, conversations, **kwargs):
        out = []
        for chat in conversations:
            last_user = max(i for i, m in enumerate(chat) if m["role"] == "user")
            request = chat[last_user]["content"]
            out.append(answers[request][sum(m["role"] == "assistant" for m in chat[last_user:])])
        return out

    monkeypatch.setattr(conv_eval, "generate_replies", replies)


def test_the_reference_answers_are_done_right_in_a_row_and_alone(monkeypatch, cache, tiny_tokenizer):
    session = _session(cache)
    _scripted(monkeypatch, {t.text: [json.dumps(a) for a in t.reference] for t in session.turns})
    report = conv_eval.evaluate_conversations(torch.nn.Identity(), tiny_tokenizer, cache, sessions={"s": session})
    assert [s["ok"] for s in report["samples"]] == [True, True, True]
    assert [s["alone_ok"] for s in report["samples"]] == [True, True, True]
    assert report["overall"]["in_a_row_minus_alone"]["mean"] == 0.0


def test_a_count_after_a_failed_append_is_judged_on_the_work_dir_as_it_is(monkeypatch, cache, tiny_tokenizer):
    """The append writes elsewhere: in a row, the count then shows the old number (wrong on the expected
    state, and the closing message's number is one no output showed); alone, the turn starts from the reference
    state and is right: the paired difference is -1/3."""
    session = _session(cache)
    answers = {t.text: [json.dumps(a) for a in t.reference] for t in session.turns}
    answers[session.turns[0].text][0] = json.dumps({"action": "CMD", "command": "echo 'call the vet' >> other.txt"})
    _scripted(monkeypatch, answers)
    report = conv_eval.evaluate_conversations(torch.nn.Identity(), tiny_tokenizer, cache, sessions={"s": session})
    first, second, _ = report["samples"]
    assert not first["ok"] and first["reason"].startswith("differs")
    assert not second["first_ok"] and second["alone_ok"]
    assert report["overall"]["in_a_row_minus_alone"]["mean"] == pytest.approx(-1 / 3)


def test_a_closing_message_that_invents_a_number_or_loops_is_not_done_right(monkeypatch, cache, tiny_tokenizer):
    session = _session(cache)
    answers = {t.text: [json.dumps(a) for a in t.reference] for t in session.turns}
    answers[session.turns[0].text][1] = json.dumps({"action": "MSG", "message": "Done, 42 lines."})
    answers[session.turns[2].text][0] = json.dumps({"action": "MSG", "message": "app the " * 6})
    _scripted(monkeypatch, answers)
    report = conv_eval.evaluate_conversations(torch.nn.Identity(), tiny_tokenizer, cache, sessions={"s": session},
                                              alone=False)  # fmt: skip
    first, second, third = report["samples"]
    assert first["first_ok"] and not first["ok"] and "42" in first["final_reason"]
    assert second["ok"]
    assert not third["ok"] and third["repeats"] == 5 and "repeats" in third["final_reason"]
    assert report["overall"]["replies_over_3_repeats"]["mean"] == pytest.approx(1 / 3)


def test_closings_after_a_failed_command_count_those_that_state_the_failure(monkeypatch, cache, tiny_tokenizer):
    """A count of a file the work dir lacks fails; the report counts the closings that follow a failure and those
    that state it (the status, or a line the command printed), not a closing after a command that succeeded."""
    session = _session(cache)
    answers = {t.text: [json.dumps(a) for a in t.reference] for t in session.turns}
    answers[session.turns[1].text] = [json.dumps({"action": "CMD", "command": "wc -l absent.txt"}),
                                      json.dumps({"action": "MSG", "message": "3 lines."})]
    _scripted(monkeypatch, answers)
    report = conv_eval.evaluate_conversations(torch.nn.Identity(), tiny_tokenizer, cache, sessions={"s": session},
                                              alone=False)  # fmt: skip
    first, second, _ = report["samples"]
    assert not first["after_a_failure"] and second["after_a_failure"] and not second["states_the_failure"]
    assert report["overall"]["closings_after_a_failure"] == {"n": 1, "stating_it": 0}
    assert "| 0 of 1 |" in conv_eval.format_conversation_table(report)
    failed = "wc: absent.txt: No such file or directory\n[exit code 1]"
    assert conv_eval.failure_stated("Failed: exit code 1.", failed) == (True, True)
    assert conv_eval.failure_stated("wc: absent.txt: No such file or directory.", failed) == (True, True)
    assert conv_eval.failure_stated("It has 3 lines.", failed) == (True, False)
    assert conv_eval.failure_stated("Done.", "3 notes.txt\n[exit code 0]") == (False, False)
    assert conv_eval.failure_stated("Done.", "[timed out after 10 s]") == (True, False)


def test_a_real_model_plays_a_session_end_to_end(cache, tiny_tokenizer):
    """The tiny random model through generate, the sandbox and the checks: every turn gets a record."""
    from tests.conftest import randomise_zero_init, tiny_config
    from rusty_hf import TinyRWKVForCausalLM

    torch.manual_seed(0)
    model = randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer))))
    report = conv_eval.evaluate_conversations(model, tiny_tokenizer, cache, sessions={"s": _session(cache)},
                                              max_new_tokens=24, max_steps=2)  # fmt: skip
    assert [s["turn"] for s in report["samples"]] == [0, 1, 2]
    assert all(len(s["replies"]) >= 1 and "alone_ok" in s for s in report["samples"])
    assert report["settings"]["turns"] == 3


def test_repeated_phrase_counts_three_word_runs():
    assert conv_eval.repeated_phrase("It prints: app the app the app the app") == ("app the app", 3)
    assert conv_eval.repeated_phrase("3 lines.") == ("", 0)


def test_the_conversation_report_has_its_own_file_and_a_block_of_its_own_in_the_card():
    from recipes.evaluate import EvalArguments, default_output_file
    from rusty_hf.hub.model_card import EVALUATIONS

    args = EvalArguments(suite="terminal", terminal_split="conversations", model_name_or_path="/nonexistent")
    assert default_output_file(args).name == "terminal_conversations_eval.json"
    assert "terminal_conversations_eval.json" in EVALUATIONS  # issue 37: reported in every card
    with pytest.raises(ValueError, match="held-out split only"):  # transformers' own decoding: held-out only
        EvalArguments(suite="terminal", terminal_split="conversations", decoder="plain", update_model_card=True)


def test_the_development_sessions_play_on_repositories_of_their_own(dev_sessions, sessions):
    """The readable sessions (`rusty_hf.data.terminal.dev`) share the suite's format and loader, not its fixtures
    or texts: what they show of a model is not read off the blind suite."""
    assert len(dev_sessions) >= 10 and all(MIN_TURNS <= len(s.turns) <= MAX_TURNS for s in dev_sessions.values())
    parts = [t.part for s in dev_sessions.values() for t in s.turns]
    assert parts.count("outside") >= 0.05 * len(parts) and parts.count("catalogue") >= 0.8 * len(parts)
    own = {s.states[0][0].key for s in dev_sessions.values()}
    assert len(own) == 3 and not own & {s.states[0][0].key for s in sessions.values()}
    trees = [s.states[0][0].tree_files() for s in dev_sessions.values()]
    assert any("Cargo.toml" in t and any(p.endswith(".py") for p in t) for t in trees)  # a project holding a crate
    blind = {_normal(t.text) for s in sessions.values() for t in s.turns}
    shared = [_normal(t.text) for s in dev_sessions.values() for t in s.turns if _normal(t.text) in blind]
    assert sum(len(text.split()) >= 4 for text in shared) == 0  # short ones ("thanks") coincide; counted, not shown


def test_the_development_sessions_write_a_report_of_their_own_and_never_into_the_card():
    from recipes.evaluate import EvalArguments, default_output_file

    args = EvalArguments(suite="terminal", terminal_split="conversations_dev", model_name_or_path="/nonexistent")
    assert default_output_file(args).name == "terminal_conversations_dev_eval.json"
    with pytest.raises(ValueError, match="for tuning"):
        EvalArguments(suite="terminal", terminal_split="heldout,conversations_dev", update_model_card=True)
    header = json.loads(DEV_CONVERSATIONS_FILE.read_text().splitlines()[0])
    assert header["version"] == DEV_CONVERSATIONS_FILE.stem


def test_a_conversation_file_names_its_own_version(tmp_path):
    bad = tmp_path / "conversations_x_v1.jsonl"
    bad.write_text(DEV_CONVERSATIONS_FILE.read_text())
    with pytest.raises(ValueError, match="expected version 'conversations_x_v1'"):
        load_conversations(tmp_path, bad)


def test_a_closing_after_a_command_names_no_file_the_session_did_not_show(tmp_path):
    shown = ["what files are here?", "app.py\nnotes.txt\n[exit code 0]", "app.py", "notes.txt", "src/"]
    assert conv_eval.invented_name("It shows: app.py, notes.txt.", shown) is None
    assert conv_eval.invented_name("It shows: __init__.py, torch.py.", shown) == "__init__.py"
    assert conv_eval.invented_name("Done. See src/ for more.", shown) is None  # a sentence's dot is no name
    verdict = conv_eval.closing_verdict("It shows: torch.py.", None, tmp_path, set(), None, shown_texts=shown)
    assert not verdict.ok and "torch.py" in verdict.reason
    assert conv_eval.closing_verdict("It shows: torch.py.", None, tmp_path, set(), None).ok  # a MSG-only turn: not asked
