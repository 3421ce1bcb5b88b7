"""Held-out evaluation (rusty_hf.evaluation.coding and recipes/evaluate.py): real generation, real sandboxed tests."""

import json

import huggingface_hub
import pytest
import torch
from huggingface_hub import ModelCard

from rusty_hf import TinyRWKVForCausalLM
from rusty_hf.data.tasks import load_tasks
from rusty_hf.evaluation.coding import (
    compare_reports,
    evaluate_model,
    format_comparison,
    format_table,
    rust_unavailable_reason,
    score_samples,
)
from rusty_hf.evaluation.stats import mean_and_stderr
from rusty_hf.hub.model_card import TASKS_DATASET, pass_at_k_evaluation
from rusty_hf.errors import UserError
from tests.conftest import randomise_zero_init, tiny_config
from tests.hub_server import HubServer


def _fenced(code: str, language: str) -> str:
    return f"Here it is:\n```{language}\n{code}```\n"


@pytest.fixture
def tiny_lm(tiny_tokenizer):
    torch.manual_seed(0)
    return randomise_zero_init(TinyRWKVForCausalLM(tiny_config(vocab_size=len(tiny_tokenizer)))).eval()


def test_python_scoring_passes_the_reference_and_fails_wrong_or_missing_code():
    task = load_tasks(language="python", split="test")[0]
    wrong = f"def {task['entry_point']}(*args, **kwargs):\n    return None\n"
    completions = [[_fenced(task["solution"], "python"), "I cannot help with that.", "", _fenced(wrong, "python")]]
    (scores,) = score_samples(completions, [task["tests"]], "python")
    assert [s.passed for s in scores] == [True, False, False, False]
    assert [s.status for s in scores[:3]] == ["ok", "syntax_error", "no_code"]
    assert [s.compiled for s in scores] == [True, False, False, True]
    assert scores[0].fraction == 1.0 and scores[3].fraction < 1.0


def test_a_sample_that_cannot_be_scored_is_reported_without_ending_the_run(monkeypatch):
    def broken_sandbox(*args, **kwargs):
        raise OSError("sandbox work dir vanished")

    monkeypatch.setattr("rusty_hf.evaluation.coding.run_python_tests", broken_sandbox)
    (scores,) = score_samples([[_fenced("def f():\n    return 1\n", "python")]], ["def test_f():\n    pass\n"], "python")
    assert [(s.passed, s.status) for s in scores] == [(False, "error")]


def test_rust_scoring_runs_the_task_tests_with_rustc():
    reason = rust_unavailable_reason()
    if reason:
        pytest.skip(reason)
    task = load_tasks(language="rust", split="test")[0]
    completions = [[_fenced(task["solution"], "rust"), _fenced("pub fn broken( {", "rust")]]
    (scores,) = score_samples(completions, [task["tests"]], "rust", references=[task["solution"]])
    assert [s.passed for s in scores] == [True, False] and scores[1].status == "compile_error"
    assert [s.compiled for s in scores] == [True, False]


def test_evaluate_model_reports_pass_at_k_and_validity_for_two_held_out_tasks(tiny_lm, tiny_tokenizer):
    report = evaluate_model(tiny_lm, tiny_tokenizer, languages=["python", "rust"], num_samples=2, k=[1, 2],
                            max_new_tokens=6, max_tasks=1, seed=0)
    json.dumps(report)  # the report is written as JSON
    ran = [lang for lang in ("python", "rust") if lang not in report["skipped"]]
    assert [t["language"] for t in report["tasks"]] == ran and "python" in ran
    for task in report["tasks"]:
        assert task["num_samples"] == 2 and len(task["samples"]) == 2 and 0 <= task["pass@1"] <= task["pass@2"] <= 1
        assert all(isinstance(s["completion"], str) and s["protocol"] for s in task["samples"])
    python = report["aggregate"]["python"]
    assert python["num_tasks"] == 1 and python["num_samples"] == 2 and set(python) >= {"pass@1", "pass@2"}
    assert report["aggregate"]["protocol"]["num_completions"] == 2 * len(ran)
    block = pass_at_k_evaluation(report)
    assert {(r.dataset_config, r.metric_type) for r in block.results} >= {("python", "pass@1"), ("python", "pass@2")}
    assert "pass@2" in format_table(report) and "| python | all | 1 |" in block.section
    assert 0 <= python["compile_rate"] <= 1 and set(python["stderr"]) >= {"pass@1", "pass@2", "compile_rate"}
    (difficulty,) = python["by_difficulty"]  # one task, so one difficulty
    assert int(difficulty) == report["tasks"][0]["difficulty"]
    assert python["by_difficulty"][difficulty]["pass@1"] == python["pass@1"]
    assert f"| python | {difficulty} | 1 |" in block.section  # the breakdown sits in the card's table


def _report(rows: list[tuple[str, str, int, float, float]]) -> dict:
    return {"tasks": [{"name": n, "language": lang, "difficulty": d, "num_samples": 4, "pass@1": p, "compile_rate": c}
                      for n, lang, d, p, c in rows]}


def test_compare_reports_is_paired_over_the_shared_tasks():
    before = _report([("a", "python", 1, 0.0, 0.5), ("b", "python", 2, 0.5, 1.0), ("c", "python", 1, 0.25, 1.0),
                      ("r", "rust", 1, 0.0, 0.0)])
    after = _report([("a", "python", 1, 0.25, 1.0), ("b", "python", 2, 0.75, 1.0), ("c", "python", 1, 0.25, 1.0),
                     ("gone", "python", 3, 1.0, 1.0), ("r", "rust", 1, 0.0, 0.5)])
    comparison = compare_reports(before, after)
    python = comparison["python"]
    assert python["num_tasks"] == 3  # "gone" was not in the baseline
    delta, stderr = mean_and_stderr([0.25, 0.25, 0.0])
    assert python["pass@1"] == pytest.approx({"before": 0.25, "after": 5 / 12, "delta": delta, "stderr": stderr,
                                              "z": delta / stderr})
    assert comparison["rust"]["compile_rate"]["delta"] == 0.5 and comparison["rust"]["compile_rate"]["z"] == 0.0
    assert "python pass@1: 0.250 -> 0.417, delta +0.167" in format_comparison(comparison)
    with pytest.raises(ValueError, match="share no task"):
        compare_reports(before, _report([("z", "python", 1, 1.0, 1.0)]))


def test_mean_and_stderr():
    assert mean_and_stderr([1.0]) == (1.0, 0.0)
    mean, stderr = mean_and_stderr([0.0, 1.0, 0.0, 1.0])
    assert mean == 0.5 and stderr == pytest.approx((1 / 3) ** 0.5 / 2)


def test_recipe_writes_the_report_and_pushes_the_metrics_in_the_model_card(tmp_path, tiny_lm, tiny_tokenizer, monkeypatch):
    from trl import TrlParser

    from recipes.evaluate import EvalArguments, main

    tiny_lm.save_pretrained(tmp_path / "ckpt")
    tiny_tokenizer.save_pretrained(tmp_path / "ckpt")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)  # talks to the loopback Hub only
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    with HubServer() as hub:
        monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", hub.url)  # what HF_ENDPOINT sets at import
        (args,) = TrlParser((EvalArguments,)).parse_args_and_config(args=[
            "--model_name_or_path", str(tmp_path / "ckpt"), "--languages", "python", "--max_tasks", "1",
            "--num_samples", "1", "--max_new_tokens", "4", "--update-model-card",
            "--push_to_hub", "true", "--hub_model_id", "rusty-tester/evaluated",
        ])
        main(args)
    report = json.loads((tmp_path / "ckpt" / "eval_results.json").read_text())
    assert report["settings"]["model"] == str(tmp_path / "ckpt") and report["settings"]["k"] == [1]
    card = ModelCard(hub.repos["rusty-tester/evaluated"].files["README.md"].decode())
    values = {(r.dataset_type, r.dataset_config, r.metric_type): r.metric_value for r in card.data.eval_results}
    assert values[(TASKS_DATASET, "python", "pass@1")] == report["aggregate"]["python"]["pass@1"]
    assert "eval_results.json" in hub.repos["rusty-tester/evaluated"].files

    # the same checkpoint against its own report: a comparison of zero, stored in the new report
    again = main(TrlParser((EvalArguments,)).parse_args_and_config(args=[
        "--model_name_or_path", str(tmp_path / "ckpt"), "--languages", "python", "--max_tasks", "1",
        "--num_samples", "1", "--max_new_tokens", "4", "--compare_to", str(tmp_path / "ckpt" / "eval_results.json"),
        "--output_file", str(tmp_path / "again.json"),
    ])[0])
    assert again["comparison"]["python"]["pass@1"]["delta"] == 0.0
    assert json.loads((tmp_path / "again.json").read_text())["comparison"]["baseline_model"] == str(tmp_path / "ckpt")


def test_a_bad_baseline_fails_before_sampling(tmp_path):
    from recipes.evaluate import EvalArguments, main

    (tmp_path / "notes.json").write_text('{"hello": 1}')
    for baseline, complaint in [(tmp_path / "missing.json", "cannot read"), (tmp_path / "notes.json", "not a tasks report")]:
        with pytest.raises(UserError, match=complaint):
            main(EvalArguments(model_name_or_path=str(tmp_path / "no-model"), compare_to=str(baseline)))


def test_eval_arguments_name_the_fix_for_impossible_settings():
    from recipes.evaluate import EvalArguments

    with pytest.raises(ValueError, match="raise --num_samples or lower --k"):
        EvalArguments(num_samples=2, k=[1, 5])
    with pytest.raises(ValueError, match="greedy"):
        EvalArguments(num_samples=4, temperature=0.0)
    with pytest.raises(ValueError, match="unknown language"):
        EvalArguments(languages=["go"])


def test_the_plain_decoder_writes_its_own_report_and_only_the_held_out_one_reaches_the_card(tmp_path):
    from recipes.evaluate import EvalArguments, default_output_file

    with pytest.raises(ValueError, match="served' or 'plain'"):
        EvalArguments(suite="terminal", decoder="beam")
    names = {split: default_output_file(EvalArguments(suite="terminal", decoder="plain", terminal_split=split,
                                                      model_name_or_path=str(tmp_path))).name
             for split in ("heldout", "blind", "conversations")}  # fmt: skip
    assert names == {"heldout": "terminal_plain_eval.json", "blind": "terminal_blind_plain_eval.json",
                     "conversations": "terminal_conversations_plain_eval.json"}
    assert default_output_file(EvalArguments(suite="terminal", model_name_or_path=str(tmp_path))).name == "terminal_eval.json"
    with pytest.raises(ValueError, match="held-out split only"):
        EvalArguments(suite="terminal", decoder="plain", terminal_split="blind", update_model_card=True)
    EvalArguments(suite="terminal", terminal_split="blind", update_model_card=True)  # the served blind report joins the card



def _fake_terminal_suites(monkeypatch) -> list[str]:
    """Each split's report from four scripted requests, no decoding; returns the splits played, in order."""
    import recipes.evaluate as recipe
    from rusty_hf.evaluation.conversations import summarize_conversations
    from rusty_hf.evaluation.terminal import summarize

    played = []

    def terminal(model, tokenizer, cache_dir, *, split, **kwargs):
        played.append(split)
        records = [{"intent": "count_lines", "request": f"{split} request {i}", "part": "seen_values", "first_ok": i % 2 == 0,
                    "episode_ok": False, "multi_turn": False, "action_type_ok": True, "valid": [True]} for i in range(4)]
        settings = {"suite": "terminal", "split": f"the {split} requests", "requests": 4, "seed": 0, "decoding": "greedy",
                    "max_new_tokens": 8, "max_steps": 1}  # fmt: skip
        return {"settings": settings, **summarize(records), "samples": records}

    def conversations(model, tokenizer, cache_dir, **kwargs):
        played.append("conversations")
        return {"settings": {"suite": "terminal", "split": "the sessions"}, **summarize_conversations([]), "samples": []}

    monkeypatch.setattr(recipe, "evaluate_terminal", terminal)
    monkeypatch.setattr(recipe, "evaluate_conversations", conversations)
    return played


@pytest.fixture
def ckpt(tmp_path, tiny_lm, tiny_tokenizer):
    tiny_lm.save_pretrained(tmp_path / "ckpt")
    tiny_tokenizer.save_pretrained(tmp_path / "ckpt")
    return tmp_path / "ckpt"


def _terminal_args(*argv: str):
    from trl import TrlParser

    from recipes.evaluate import EvalArguments

    (args,) = TrlParser((EvalArguments,)).parse_args_and_config(args=["--suite", "terminal", *argv])
    return args


def test_several_terminal_splits_load_the_model_once_and_each_writes_its_default_report(ckpt, monkeypatch):
    import recipes.evaluate as recipe

    played = _fake_terminal_suites(monkeypatch)
    loads, real_load = [], recipe.load_model
    monkeypatch.setattr(recipe, "load_model", lambda *a, **kw: loads.append(a) or real_load(*a, **kw))
    reports = recipe.main(_terminal_args("--terminal_split", "heldout,conversations", "--model_name_or_path", str(ckpt),
                                         "--update_model_card"))
    assert len(loads) == 1 and played == ["heldout", "conversations"] and set(reports) == {"heldout", "conversations"}
    for split, name in [("heldout", "terminal_eval.json"), ("conversations", "terminal_conversations_eval.json")]:
        written = json.loads((ckpt / name).read_text())
        assert written == reports[split] and written["settings"]["model"] == str(ckpt)
    card = (ckpt / "README.md").read_text()
    assert "Settings: 4 held-out requests" in card and "sessions of requests in a row" in card  # both reached the card

    single = recipe.main(_terminal_args("--terminal_split", "blind", "--model_name_or_path", str(ckpt)))
    assert single["settings"]["split"] == "the blind requests"  # one split: the report itself, as before


def test_compare_to_pairs_with_the_split_its_baseline_was_measured_on(ckpt, tmp_path, monkeypatch):
    import recipes.evaluate as recipe

    played = _fake_terminal_suites(monkeypatch)
    baseline = recipe.evaluate_terminal(None, None, None, split="heldout")
    for sample in baseline["samples"]:
        sample["first_ok"] = False
    (tmp_path / "before.json").write_text(json.dumps(baseline))
    compare = ["--compare_to", str(tmp_path / "before.json"), "--model_name_or_path", str(ckpt)]
    reports = recipe.main(_terminal_args("--terminal_split", "blind,heldout", *compare))
    assert "comparison" not in reports["blind"]
    paired = reports["heldout"]["comparison"]
    assert paired["baseline"] == str(tmp_path / "before.json")
    assert paired["overall (trained intents)"]["first_action_success"]["mean"] == 0.5  # 2 of 4 now right, 0 before
    assert json.loads((ckpt / "terminal_eval.json").read_text())["comparison"] == paired

    played.clear()
    with pytest.raises(UserError, match="no split of --terminal_split blind,conversations is. Fix: add the baseline's split"):
        recipe.main(_terminal_args("--terminal_split", "blind,conversations", *compare))
    assert played == ["blind", "conversations"]
    with pytest.raises(UserError, match="same suite version and seed"):  # one split: compared whatever it is, as before
        recipe.main(_terminal_args("--terminal_split", "blind", *compare))
    with pytest.raises(UserError, match="carries its own paired difference"):
        recipe.main(_terminal_args("--terminal_split", "conversations", *compare))


def test_terminal_split_lists_are_checked_name_by_name():
    from recipes.evaluate import EvalArguments

    assert EvalArguments(suite="terminal", terminal_split="heldout, blind").terminal_splits == ["heldout", "blind"]
    with pytest.raises(ValueError, match="drop --output_file"):
        EvalArguments(suite="terminal", terminal_split="heldout,blind", output_file="report.json")
    EvalArguments(suite="terminal", terminal_split="blind", output_file="report.json")  # one split: one file
    for bad in ("heldout,test", "heldout,", "heldout blind"):
        with pytest.raises(ValueError, match="terminal_split must be one of"):
            EvalArguments(suite="terminal", terminal_split=bad)
    with pytest.raises(ValueError, match="names a split twice"):
        EvalArguments(suite="terminal", terminal_split="blind,heldout,blind")
    with pytest.raises(ValueError, match="held-out split only"):  # every name gets the single split's checks
        EvalArguments(suite="terminal", terminal_split="heldout,dev", update_model_card=True)
    with pytest.raises(ValueError, match="--terminal_split conversations --decoder plain"):
        EvalArguments(suite="terminal", terminal_split="heldout,conversations", decoder="plain", update_model_card=True)
