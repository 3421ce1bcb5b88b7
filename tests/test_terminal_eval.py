"""The terminal evaluation: requests played as rusty-terminal would, actions judged by execution."""

import json

import pytest
import torch

import rusty_hf.evaluation.terminal as terminal_eval
from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.dataset import heldout_requests
from tests.conftest import tiny_config

FEW = {"seen_values": 1, "new_values": 1, "new_intents": 1}


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("terminal_fixtures")


def _reference_replies(monkeypatch):
    """Replace the model by a policy that answers every request with its reference actions."""
    by_text = {r.text: r for r in heldout_requests(seed=0, per_intent=FEW)}

    def replies(model, tokenizer, conversations, **kwargs):
        out = []
        for conversation in conversations:
            request = by_text[next(m["content"] for m in conversation if m["role"] == "user")]
            step = sum(m["role"] == "assistant" for m in conversation)
            out.append(json.dumps(request.case.actions[min(step, len(request.case.actions) - 1)]))
        return out

    monkeypatch.setattr(terminal_eval, "generate_replies", replies)


def test_the_references_succeed_in_every_part(monkeypatch, cache, tiny_tokenizer):
    _reference_replies(monkeypatch)
    report = terminal_eval.evaluate_terminal(torch.nn.Identity(), tiny_tokenizer, cache, per_intent=FEW)
    assert report["settings"]["requests"] == len(report["samples"]) == len(heldout_requests(seed=0, per_intent=FEW))
    for block in [report["overall"], *report["parts"].values()]:
        assert block["first_action_success"]["mean"] == 1.0
        assert block["episode_success"]["mean"] in (1.0, None)
    assert report["overall"]["episode_success"]["n"] >= 5  # the multi-turn intents played to their MSG
    assert "diff_files" in report["intents"] and report["intents"]["diff_files"]["part"] == "new_intents"


def test_a_random_model_stays_valid_under_constrained_decoding(cache, tiny_tokenizer):
    torch.manual_seed(0)
    model = TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))
    report = terminal_eval.evaluate_terminal(model, tiny_tokenizer, cache, per_intent={"seen_values": 1, "new_values": 0,
                                                                                       "new_intents": 0}, max_new_tokens=24)
    assert report["overall"]["protocol_validity"]["mean"] == 1.0
    assert all(sample["replies"] for sample in report["samples"])
    assert "| overall (trained intents) |" in terminal_eval.format_terminal_table(report)


def test_the_comparison_is_paired_over_the_same_requests(monkeypatch, cache, tiny_tokenizer):
    _reference_replies(monkeypatch)
    after = terminal_eval.evaluate_terminal(torch.nn.Identity(), tiny_tokenizer, cache, per_intent=FEW)
    before = json.loads(json.dumps(after))
    for sample in before["samples"][::2]:
        sample["first_ok"] = False
    comparison = terminal_eval.compare_terminal(before, after)
    overall = comparison["overall (trained intents)"]["first_action_success"]
    trained = [s for s in after["samples"] if s["part"] != "new_intents"]
    assert overall["mean"] == pytest.approx(sum(not s["first_ok"] for s in before["samples"] if s["part"] != "new_intents") / len(trained))
    before["samples"] = before["samples"][1:]
    with pytest.raises(ValueError, match="same requests"):
        terminal_eval.compare_terminal(before, after)


def test_the_dev_split_is_played_apart_from_the_heldout_one(monkeypatch, cache, tiny_tokenizer):
    from rusty_hf.data.terminal.dataset import dev_requests

    by_text = {r.text: r for r in dev_requests(per_intent=1)}
    monkeypatch.setattr(terminal_eval, "generate_replies", lambda model, tokenizer, conversations, **kw: [
        json.dumps(by_text[next(m["content"] for m in c if m["role"] == "user")].case.actions[
            min(sum(m["role"] == "assistant" for m in c), 1 if by_text[next(m["content"] for m in c if m["role"] == "user")].multi_turn else 0)])
        for c in conversations])  # fmt: skip
    report = terminal_eval.evaluate_terminal(torch.nn.Identity(), tiny_tokenizer, cache, split="dev", dev_per_intent=1)
    assert report["settings"]["split"].startswith("dev") and {s["part"] for s in report["samples"]} == {"dev"}
    assert report["parts"]["dev"]["first_action_success"]["mean"] == 1.0
    heldout = {r.text for r in heldout_requests(seed=0)}
    assert not heldout & {s["request"] for s in report["samples"]}
    with pytest.raises(ValueError, match="split"):
        terminal_eval.evaluate_terminal(torch.nn.Identity(), tiny_tokenizer, cache, split="test")


def test_evaluate_refuses_to_put_dev_numbers_in_the_card():
    from recipes.evaluate import EvalArguments, default_output_file

    with pytest.raises(ValueError, match="held-out split only"):
        EvalArguments(suite="terminal", terminal_split="dev", update_model_card=True)
    args = EvalArguments(suite="terminal", terminal_split="dev", model_name_or_path="/nonexistent")
    assert default_output_file(args).name == "terminal_dev_eval.json"


def test_the_evaluation_judges_with_the_rewards_checks(monkeypatch, cache, tiny_tokenizer):
    """The reward reads a row's checks from JSON, the evaluation judges the request's own: the same checks,
    so a command that prints everything fails here as it earns no reward there (issue 39)."""
    requests = heldout_requests(seed=0, per_intent=FEW)
    assert all(Check.from_json(r.row()["check"]) == r.case.first for r in requests)
    dump = json.dumps({"action": "CMD", "command": "grep -rn . ."})
    monkeypatch.setattr(terminal_eval, "generate_replies", lambda model, tokenizer, conversations, **kw: [dump] * len(conversations))
    report = terminal_eval.evaluate_terminal(torch.nn.Identity(), tiny_tokenizer, cache, per_intent=FEW)
    assert not [s["intent"] for s in report["samples"] if s["first_ok"]]
