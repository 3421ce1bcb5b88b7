"""The model card built from a checkpoint folder: Hub metadata the library accepts, every block, no local paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from huggingface_hub import ModelCard, ModelCardData
from huggingface_hub.repocard_data import eval_results_to_model_index, model_index_to_eval_results

from rusty_hf.hub.model_card import EVALUATIONS, TASKS_DATASET, write_model_card
from rusty_hf.hub.publishing import base_lineage, drop_stale_reports
from rusty_hf.evaluation.reward_gain import RewardScore, compare

GAIN_SETTINGS = {"reward_names": ["execution", "protocol"], "num_samples": 4, "languages": ["python"], "temperature": 0.7,
                 "max_new_tokens": 160, "seed": 0, "reward_weights": [1.0, 0.5], "batch_size": 4, "device": "auto"}


def _gain_report(home: str) -> dict:
    before = RewardScore(f"{home}/runs/tiny-sft", [1.0, 1.2, 0.9, 1.1], {"execution": 0.1, "protocol": 0.95})
    after = RewardScore(f"{home}/runs/tiny-grpo", [1.3, 1.2, 1.25, 1.35], {"execution": 0.2, "protocol": 1.0})
    return {**compare(before, after), "settings": GAIN_SETTINGS}


def _eval_report(num_tasks: int) -> dict:
    row = {"pass@1": 0.125, "compile_rate": 0.75, "num_tasks": num_tasks, "num_samples": 2 * num_tasks,
           "stderr": {"pass@1": 0.05, "compile_rate": 0.04}}
    settings = {"languages": ["python"], "split": "test", "num_samples": 2, "k": [1], "temperature": 0.8, "top_p": 0.95,
                "max_new_tokens": 160, "batch_size": 4, "seed": 0, "max_tasks": None}
    return {"settings": settings, "skipped": {"rust": "rustc was not found"}, "tasks": [],
            "aggregate": {"python": {**row, "by_difficulty": {"2": dict(row, num_tasks=num_tasks // 2)}},
                          "protocol": {"protocol_validity": 0.98, "num_completions": 2 * num_tasks}}}


@pytest.fixture
def folder(tmp_path) -> Path:
    """A model folder as the quickstart leaves it: config, an RL recipe with local absolute paths, curves, reports."""
    folder = tmp_path / "tiny-grpo"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "tiny_rwkv"}')
    (folder / "training_curves.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "rl_training.log").write_text("iteration,avg_reward,reward_std,compile_success_rate,parse_success_rate,kl,"
                                            "loss\n1,0.25,0.1,,0.5,0,0.3\n2,0.75,0.1,,0.5,0.02,0.1\n")
    (folder / "reward_gain.json").write_text(json.dumps(_gain_report(str(tmp_path))))
    (folder / "eval_results.json").write_text(json.dumps(_eval_report(47)))
    recipe = (f"# Model arguments (ModelConfig)\nmodel_name_or_path: {tmp_path}/runs/tiny-sft\n"
              f"# Data and script arguments (RLScriptArguments)\ntokenizer_name_or_path: {Path.home()}/tok\n"
              f"reward_funcs:\n- execution\n- protocol\n# Trainer config (GRPOConfig)\noutput_dir: {folder}\n"
              "reward_weights:\n- 1.0\n- 0.5\n")
    write_model_card(folder, recipe=recipe)
    return folder


def test_the_metadata_passes_huggingface_hubs_own_checks(folder):
    card = ModelCard.load(folder / "README.md", ignore_metadata_errors=False)  # raises on invalid metadata
    data = card.data
    assert (data.license, data.library_name, data.pipeline_tag) == ("agpl-3.0", "transformers", "text-generation")
    assert data.datasets is None and data.base_model is None  # no Hub dataset; the base is a local folder
    # the model-index names the generated data by its generator, never as a Hub id that does not exist
    assert data.eval_results and all("/" not in r.dataset_type for r in data.eval_results)
    name, results = model_index_to_eval_results(data.to_dict()["model-index"])
    assert name == "tiny-grpo" and eval_results_to_model_index(name, results) == data.to_dict()["model-index"]
    assert ModelCardData(**yaml.safe_load(card.content.split("---")[1])).eval_results == data.eval_results


def test_the_rl_gain_and_pass_at_k_are_indexed_with_their_settings(folder):
    results = {(r.dataset_config, r.metric_type): r for r in ModelCard.load(folder / "README.md").data.eval_results}
    gain = results[("python", "reward_gain")]
    assert gain.dataset_type == TASKS_DATASET and gain.metric_value == pytest.approx(_gain_report("/x")["gain"])
    assert gain.metric_args == {"num_samples": 4, "temperature": 0.7, "rewards": ["execution", "protocol"],
                                "reward_weights": [1.0, 0.5], "seed": 0}
    assert results[("python", "reward_gain_stderr")].metric_value > 0
    assert results[("python", "pass@1")].metric_value == 0.125 and results[("all", "protocol_validity")].metric_value == 0.98


def test_the_body_has_curves_rewards_use_limitations_and_settings(folder):
    text = ModelCard.load(folder / "README.md").text
    for piece in ("![Reward, KL to the reference and loss per step](training_curves.png)",
                  "reward 0.500 over the first 2 steps, 0.500 over the last 2; KL to the reference at most 0.02, last 0.02",
                  "`execution` (weight 1)", "`protocol` (weight 0.5)",
                  "## Intended use", "## Limitations", "4 samples each at temperature 0.7", "**gain**",
                  "2 samples per task at temperature 0.8", "| python | 2 | 23 |", "rust | skipped: rustc was not found",
                  "Fine-tuned from a local checkpoint, `tiny-sft`",
                  "built from [`tasks/`](https://github.com/rusty-hf/rusty_hf/tree/main/tasks) in the rusty_hf repository"):
        assert piece in text, piece


def test_no_local_absolute_path_reaches_the_card(folder, tmp_path):
    content = (folder / "README.md").read_text()
    assert str(tmp_path) not in content and str(Path.home()) not in content
    assert "model_name_or_path: tiny-sft" in content and "output_dir: tiny-grpo" in content
    assert str(tmp_path) not in (folder / "training_recipe.yaml").read_text()


def test_dataset_names_do_not_change_with_the_task_count(folder):
    first = {(r.dataset_type, r.dataset_name, r.dataset_config) for r in ModelCard.load(folder / "README.md").data.eval_results}
    (folder / "eval_results.json").write_text(json.dumps(_eval_report(12)))
    second = {(r.dataset_type, r.dataset_name, r.dataset_config) for r in write_model_card(folder).data.eval_results}
    assert first == second


def test_a_rebuild_keeps_the_recipe_and_an_sft_card_names_its_data(tmp_path):
    folder = tmp_path / "tiny-sft"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    write_model_card(folder, recipe="# Data and script arguments (RustyScriptArguments)\nnum_dialogs: 64\n")
    card = write_model_card(folder)
    assert "num_dialogs: 64" in card.text and card.data.datasets is None
    assert "[`rusty_hf/data/dialogs.py`](https://github.com/rusty-hf/rusty_hf/blob/main/rusty_hf/data/dialogs.py)" in card.text
    assert "Trained from freshly initialised weights." in card.text and "Not evaluated yet" in card.text


def test_a_local_base_passes_on_its_hub_name_and_datasets(tmp_path):
    base = tmp_path / "base"
    base.mkdir()
    (base / "config.json").write_text("{}")
    write_model_card(base, recipe="dataset_name: me/code\n", model_name="me/rusty-sft")
    assert base_lineage(str(base)) == ("me/rusty-sft", ["me/code"])
    assert base_lineage("org/hub-model") == ("org/hub-model", None) and base_lineage(None) == (None, None)


def test_datasets_names_only_hub_datasets_and_drops_the_generated_names_older_cards_had(folder):
    old = ModelCard.load(folder / "README.md")
    old.data.datasets = [TASKS_DATASET]  # what cards said before: a Hub id that does not exist
    old.save(folder / "README.md")
    card = write_model_card(folder, recipe="# Data and script arguments (PretrainScriptArguments)\ndataset_name: me/code\n")
    assert card.data.datasets == ["me/code"]
    assert "[`me/code`](https://huggingface.co/datasets/me/code) (Hub dataset)" in card.text


def test_reports_of_replaced_weights_are_dropped(folder, capsys):
    drop_stale_reports(folder)
    assert not any((folder / name).exists() for name in EVALUATIONS)
    assert "measured the weights this run replaced" in capsys.readouterr().out


def _terminal_report(parts: dict[str, list[bool]], constrained: bool = True) -> dict:
    """A terminal report as `evaluate_terminal` writes it, from (part -> first-action verdicts)."""
    from rusty_hf.evaluation.terminal import summarize

    records = [{"intent": "list_root", "part": part, "multi_turn": False, "first_ok": ok, "episode_ok": ok,
                "action_type_ok": True, "valid": [True]} for part, oks in parts.items() for ok in oks]  # fmt: skip
    settings = {"suite": "terminal", "split": "x", "requests": len(records), "seed": 0, "decoding": "greedy",
                "temperature": 0.0, "constrained": constrained, "copy_bias": constrained, "max_new_tokens": 96, "max_steps": 3}
    return {"settings": settings, **summarize(records), "samples": records}


def test_the_card_shows_the_blind_and_conversation_suites_and_the_plain_decoder_beside_the_held_out_split(folder):
    """Issue 37: the blind and conversation suites are reported beside the held-out split, and the card says which
    numbers need rusty_hf's decoder, with transformers' own decoding beside them."""
    from rusty_hf.evaluation.conversations import summarize_conversations

    heldout = {"seen_values": [True, True, False], "new_values": [True, False], "new_intents": [False]}
    (folder / "terminal_eval.json").write_text(json.dumps(_terminal_report(heldout)))
    (folder / "terminal_plain_eval.json").write_text(json.dumps(_terminal_report(
        {"seen_values": [True, False, False], "new_values": [False, False], "new_intents": [False]}, constrained=False)))
    (folder / "terminal_blind_eval.json").write_text(json.dumps(_terminal_report(
        {"catalogue": [True, False, True, True], "outside": [False, True]})))
    turns = [{"session": "c01", "turn": k, "part": "catalogue", "ok": ok, "first_ok": ok, "alone_ok": True,
              "alone_first_ok": True, "repeats": 1, "valid": [True]} for k, ok in enumerate([True, False, False, True])]
    report = {"settings": {"suite": "terminal", "sessions": 1, "turns": 4, "decoding": "greedy", "constrained": True,
                           "copy_bias": True}, **summarize_conversations(turns), "samples": turns}  # fmt: skip
    (folder / "terminal_conversations_eval.json").write_text(json.dumps(report))
    card = write_model_card(folder)
    text = card.text
    order = [text.index(title) for title in ("Held-out terminal requests", "plain transformers decoding",
                                             "Blind terminal requests", "Terminal conversations")]
    assert order == sorted(order)
    assert "need rusty_hf's decoder" in text and "plain transformers `generate`" in text
    assert "0.667" in text and "0.333" in text  # seen values: served 2 of 3, plain 1 of 3
    results = {(r.dataset_name, r.metric_type): r.metric_value for r in card.data.eval_results}
    assert results[("Rusty terminal requests, blind (catalogue)", "first_action_success")] == 0.75
    assert results[("Rusty terminal requests, held-out, plain decoding (seen_values)", "first_action_success")] == pytest.approx(1 / 3)
    assert results[("Rusty terminal conversations", "done_right")] == 0.5
    assert results[("Rusty terminal conversations", "done_right_alone")] == 1.0
    loaded = ModelCard.load(folder / "README.md")  # the metadata round-trips through the Hub's own parser
    assert len(loaded.data.eval_results) == len(card.data.eval_results)


def test_evaluations_side_by_side_leave_one_card_with_every_report(folder):
    """The quickstart's two evaluation lanes each save a report and rebuild the card, at once: a card build reads whole
    reports and takes one write at a time, so none fails on half a file and the last card holds both reports."""
    import subprocess
    import sys

    expected = {r.dataset_name for r in ModelCard.load(folder / "README.md").data.eval_results}
    reports = {name: (folder / name).read_text() for name in ("reward_gain.json", "eval_results.json")}
    for name in reports:
        (folder / name).unlink()
    write_model_card(folder)
    assert not ModelCard.load(folder / "README.md").data.eval_results
    code = ("import json, sys\nfrom rusty_hf.hub.model_card import save_report, write_model_card\n"
            "folder, name, report = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])\n"
            "for _ in range(6):\n    save_report(f'{folder}/{name}', report)\n    write_model_card(folder)\n")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(folder), name, text]) for name, text in reports.items()]
    assert [run.wait(timeout=300) for run in runs] == [0, 0]
    assert {r.dataset_name for r in ModelCard.load(folder / "README.md").data.eval_results} == expected
    assert all(json.loads((folder / name).read_text()) == json.loads(text) for name, text in reports.items())
    assert not [p.name for p in folder.iterdir() if p.name.startswith(".")]  # no temporary file left behind
