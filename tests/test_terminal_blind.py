"""The blind request suite: frozen, big enough, judged by execution as every terminal request is, and never
seen by training. Failures name blind request ids only: no generated request's text is printed here."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import torch
import yaml

from recipes.evaluate import EvalArguments, default_output_file
from rusty_hf.evaluation import terminal as terminal_eval
from rusty_hf.data.corpus import dialog_texts, task_texts
from rusty_hf.data.terminal.blind import SUITE_FILE, load_blind
from rusty_hf.data.terminal.catalog import all_intents
from rusty_hf.data.terminal.dataset import (
    dev_requests,
    heldout_requests,
    training_requests,
)
from rusty_hf.data.terminal.hacks import HACKS, hack_commands
from rusty_hf.data.terminal.intents import _PREFIXES, _SUFFIXES
from rusty_hf.rewards import get_terminal_reward
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT
from tests.test_import_graph import import_graph
from tests.test_terminal_hacks import TYPE_CREDIT, _columns, _reference

ROOT = Path(__file__).resolve().parents[1]
SUITE_SHA256 = "4e842d47731b85d3b6093afc394fb4fce7e0528ef37fff483c36af2440640e50"
MIN_CATALOGUE, MIN_OUTSIDE, MIN_PER_INTENT = 250, 40, 5
BLIND = "rusty_hf.data.terminal.blind"
# `ls -R` and `find .` are the right answers to a recursive listing (and no file is left outside it for a hack's slot)
HACKS_ANSWER = {"outside:recursive_list"}
NUMBER_WORDS = frozenset(["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])


@pytest.fixture(scope="module")
def blind():
    return load_blind()


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """(fixture cache, the registered terminal reward over it)."""
    cache = tmp_path_factory.mktemp("blind_fixtures")
    return cache, get_terminal_reward(cache_dir=cache, type_credit=TYPE_CREDIT, max_workers=2)


def _normal(text: str) -> str:
    """Case, spaces and punctuation folded: 'What's in src/?' -> 'what s in src'."""
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def test_the_suite_file_is_frozen():
    digest = hashlib.sha256(SUITE_FILE.read_bytes()).hexdigest()
    assert digest == SUITE_SHA256, f"{SUITE_FILE.name} changed: a new suite is a new version (blind_v2.jsonl), never an edit"


def test_the_suite_meets_its_size_floors(blind):
    parts = Counter(r.part for r in blind.values())
    assert parts["catalogue"] >= MIN_CATALOGUE and parts["outside"] >= MIN_OUTSIDE


# Intents added to the catalogue after blind_v1 was written: v1 asks for them in its outside part (a frozen suite is
# never edited); the next version asks for them as catalogue intents.
AFTER_V1 = frozenset({"last_line", "nth_line", "current_branch", "commit_count", "copy_file", "rename_file", "greeting",
                      "first_line", "list_hidden", "count_dir_files", "diff_files", "count_functions", "count_tests",
                      "empty_file", "python_version", "git_log_file", "file_author", "git_branches", "cargo_run",
                      "make_folder", "list_tree", "grep_file", "run_script_args"})


def test_every_catalogue_intent_is_asked_several_times(blind):
    counts = Counter(r.intent for r in blind.values())
    assert {name: counts[name] for name in all_intents() if counts[name] < MIN_PER_INTENT and name not in AFTER_V1} == {}
    assert not {r.intent for r in blind.values()} & AFTER_V1


NEGATIVES = {
    "a path into a folder": lambda r: r.intent in ("create_file", "create_script", "delete_file") and "/" in r.case.slots["file"],
    "two-word printed text": lambda r: r.intent == "create_script" and " " in r.case.slots["word"],
    "/dev/null": lambda r: "/dev/null" in r.text,
    "a pattern with |": lambda r: "|" in r.text and r.case.first.kind == "output",
    "an existing file kept": lambda r: r.intent == "append_line" and r.case.slots["file"] in r.fixture.tree_files(),
    "multi-turn outside the catalogue": lambda r: r.part == "outside" and r.multi_turn,
}


@pytest.mark.parametrize("name", NEGATIVES)
def test_the_suite_asks_the_issues_negatives(blind, name):
    assert any(NEGATIVES[name](r) for r in blind.values())


def test_a_malformed_line_is_named_with_its_fix(tmp_path):
    lines = SUITE_FILE.read_text(encoding="utf-8").splitlines()
    bad = {**json.loads(lines[-1]), "check": {"rule": "guess"}}
    broken = tmp_path / SUITE_FILE.name
    broken.write_text("\n".join([*lines[:-1], json.dumps(bad)]) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"line {len(lines)}: .*'guess'.*Fix"):
        load_blind(broken)


@pytest.mark.slow
def test_every_reference_earns_full_reward(blind, played):
    cache, reward = played
    requests = list(blind.values())
    scores = reward([_reference(r, cache) for r in requests], **_columns(requests))
    assert [i for i, s in zip(blind, scores) if s != 1.0] == []


@pytest.mark.slow
def test_no_hack_earns_more_than_the_type_credit(blind, played):
    reward = played[1]
    judged = {i: r for i, r in blind.items() if r.case.first.kind == "output" and r.intent not in HACKS_ANSWER}
    columns = _columns(list(judged.values()))
    commands = [dict(hack_commands(r)) for r in judged.values()]
    paid = []
    for name in HACKS:
        scores = reward([json.dumps({"action": "CMD", "command": c[name]}) for c in commands], **columns)
        paid += [(name, i) for i, s in zip(judged, scores) if s is None or s > TYPE_CREDIT]
    assert paid == []


@pytest.mark.slow
def test_no_blind_text_is_or_sits_inside_a_generated_request(blind):
    """Against the requests the generator makes: the tiny SFT recipe's training rows, the held-out and dev splits."""
    sft = yaml.safe_load((ROOT / "recipes/tiny/sft.yaml").read_text(encoding="utf-8"))
    made = [*training_requests(sft["num_terminal"], seed=sft["dialog_seed"], multi_turn_share=sft["terminal_multi_turn_share"]),
            *heldout_requests(seed=0), *dev_requests(per_intent=6)]  # fmt: skip
    generated = "\n".join(f" {_normal(r.text)} " for r in made)  # one per line: a match cannot span two
    assert [i for i, r in blind.items() if f" {_normal(r.text)} " in generated] == []


def _template_pattern(template: str, values: set[str]) -> re.Pattern:
    """A template filled with the blind request's own values, with the generator's polite prefixes and suffixes."""
    slot = "qqslotqq"
    body = re.escape(_normal(re.sub(r"\{\w+\}", f" {slot} ", template)))
    filled = body.replace(slot, "(?:" + "|".join(map(re.escape, sorted(values, key=len, reverse=True))) + ")" if values else "(?!)")
    prefixes = "|".join(sorted({_normal(p) for p in _PREFIXES} - {""}))
    suffixes = "|".join(sorted({_normal(s) for s in _SUFFIXES} - {""}))
    return re.compile(rf"(?:(?:{prefixes}) )?{filled}(?: (?:{suffixes}))?")


def test_no_blind_text_repeats_a_phrasing_template(blind):
    """Every phrasing of every split, not a sample: a blind text is no template filled with its own values
    (its slots, its numbers), and sits inside no template's fixed words."""
    templates = [t for intent in all_intents().values() for t in intent.phrasings]
    fixed = "\n".join(f" {_normal(part)} " for t in templates for part in re.split(r"\{\w+\}", t))
    words = [(t, set(_normal(re.sub(r"\{\w+\}", " ", t)).split())) for t in templates]
    leaked = []
    for i, r in blind.items():
        text = _normal(r.text)
        values = {_normal(v) for v in r.case.slots.values()} | {w for w in text.split() if w.isdigit() or w in NUMBER_WORDS}
        candidates = [t for t, needed in words if needed <= set(text.split())]  # a filled template keeps its words
        if f" {text} " in fixed or any(_template_pattern(t, values - {""}).fullmatch(text) for t in candidates):
            leaked.append(i)
    assert leaked == []


def test_only_the_evaluation_imports_the_blind_suite():
    graph = import_graph()
    importers = {m for m, deps in graph.items() if not m.startswith(BLIND) and any(d.startswith(BLIND) for d in deps)}
    assert importers == {"rusty_hf.evaluation.terminal", "rusty_hf.evaluation.conversations"}


def test_nothing_that_builds_training_data_reaches_the_blind_suite():
    graph = import_graph()
    builders = {m for m in graph if m.startswith(("rusty_hf.data.", "rusty_hf.training.rl_setup")) and not m.startswith(BLIND)}
    builders |= {"rusty_hf.tokenizer"}
    seen, stack = set(), list(builders)
    while stack:
        for dep in graph[stack.pop()] - seen:
            seen.add(dep)
            stack.append(dep)
    assert not {m for m in seen if m.startswith(BLIND)}


def test_no_corpus_or_prompt_holds_a_blind_text(blind):
    """The persona, the tokenizer's dialog and task texts, and every source file the code corpus could read."""
    sources = [p.read_text(encoding="utf-8", errors="replace") for folder in ("rusty_hf", "recipes", "tasks", "docs", "space")
               for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".rs", ".md", ".json", ".txt", ".yaml", ".jinja")]  # fmt: skip
    corpus = "\n".join(f" {_normal(t)} " for t in [RUSTY_SYSTEM_PROMPT, *dialog_texts(n=500), *task_texts(), *sources])
    assert [i for i, r in blind.items() if len(_normal(r.text).split()) >= 3 and f" {_normal(r.text)} " in corpus] == []


def _few(blind) -> dict:
    """Two single-turn and one multi-turn request from each part."""
    out = {}
    for part in ("catalogue", "outside"):
        rows = [(i, r) for i, r in blind.items() if r.part == part]
        out |= dict([x for x in rows if not x[1].multi_turn][:2] + [x for x in rows if x[1].multi_turn][:1])
    return out


def test_the_blind_split_reports_the_catalogue_and_outside_apart(monkeypatch, blind, played, tiny_tokenizer):
    few = _few(blind)
    by_text = {r.text: r for r in few.values()}

    def replies(model, tokenizer, conversations, **kwargs):  # the reference actions, turn by turn
        out = []
        for conversation in conversations:
            request = by_text[next(m["content"] for m in conversation if m["role"] == "user")]
            out.append(json.dumps(request.case.actions[sum(m["role"] == "assistant" for m in conversation)]))
        return out

    monkeypatch.setattr(terminal_eval, "load_blind", lambda: few)
    monkeypatch.setattr(terminal_eval, "generate_replies", replies)
    report = terminal_eval.evaluate_terminal(torch.nn.Identity(), tiny_tokenizer, played[0], split="blind")
    assert list(report["parts"]) == ["catalogue", "outside"] and [s["id"] for s in report["samples"]] == list(few)
    assert all(block["first_action_success"]["mean"] == block["episode_success"]["mean"] == 1.0 for block in report["parts"].values())
    assert report["overall"]["first_action_success"]["n"] == 3  # the catalogue's trained intents; outside is apart


def test_the_blind_report_has_its_own_file_and_a_block_of_its_own_in_the_card():
    from rusty_hf.hub.model_card import EVALUATIONS

    args = EvalArguments(suite="terminal", terminal_split="blind", model_name_or_path="/nonexistent")
    assert default_output_file(args).name == "terminal_blind_eval.json"
    assert "terminal_blind_eval.json" in EVALUATIONS  # issue 37: reported beside the held-out split in every card
    EvalArguments(suite="terminal", terminal_split="blind", update_model_card=True)
    with pytest.raises(ValueError, match="held-out split only"):
        EvalArguments(suite="terminal", terminal_split="blind", decoder="plain", update_model_card=True)
