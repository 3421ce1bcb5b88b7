"""The model card of a Rusty checkpoint, built from what its folder holds (huggingface_hub's ModelCard API).

    from rusty_hf.hub.model_card import write_model_card
    write_model_card("outputs/tiny-grpo")                       # README.md: metadata + body, rebuilt in full

The card is rebuilt from files the pipeline leaves in the folder, so any step may rewrite it without
losing another's part: ``training_recipe.yaml`` (the run's arguments: base checkpoint, reward functions
and weights, training data), ``training_curves.png`` (embedded) and ``rl_training.log`` (the RL run's reward,
KL and loss, summarised in a line), and one evaluation block per report
file that `EVALUATIONS` knows (``reward_gain.json``: the held-out reward before and after RL with its
standard error; ``eval_results.json``: pass@k, compile rate and protocol validity), each with the
settings it was measured with. A new evaluation is one more reader in `EVALUATIONS`: a function from
the report (a dict) to a `CardEvaluation` (its body section and its model-index rows).

Metadata: license, ``library_name``, ``pipeline_tag``, tags, ``base_model`` (a Hub id only), ``datasets``
(Hub datasets only: a recipe's ``dataset_name``, or what the caller names; the data rusty_hf generates
from its repository is no Hub dataset, so the body links its generators instead) and ``model-index``
(dataset types with stable names, `TASKS_DATASET` etc.: no counts or dates, so results line up across
runs). No local absolute path reaches the card: paths in the recipe are made relative to the working
directory, or cut to their last part.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from huggingface_hub import EvalResult, ModelCard, ModelCardData

from rusty_hf.hub.model_card_body import CODE_CORPUS_DATASET, DIALOGS_DATASET, TASKS_DATASET, TERMINAL_DATASET, body, scrub_paths

DEFAULT_TAGS: tuple[str, ...] = ("rusty", "rwkv", "tiny-rwkv", "trl", "code", "agent")
RECIPE_FILE = "training_recipe.yaml"
CURVES_FILE = "training_curves.png"  # rusty_hf.trainers.training_log.CURVES_FILENAME
RUSTY_DATASETS = (TASKS_DATASET, DIALOGS_DATASET, CODE_CORPUS_DATASET, TERMINAL_DATASET)

Metrics = Mapping[str, Mapping[str, float]]  # {evaluation set: {metric name: value}}


@dataclass
class RecipeFacts:
    """What a card says about training, read from the recipe: where it started, rewards, data."""

    base: str | None = None  # model_name_or_path (paths scrubbed); None: trained from fresh weights
    rewards: list[tuple[str, float]] = field(default_factory=list)  # (registry name, weight); empty unless RL
    datasets: list[str] = field(default_factory=list)  # Hub dataset ids (the recipe's dataset_name)
    data: list[str] = field(default_factory=list)  # data generated from the repository (`GENERATED_DATA` names)


def recipe_facts(recipe: str | None) -> RecipeFacts:
    """The `RecipeFacts` of a recipe YAML written by `rusty_hf.hub.publishing.recipe_yaml` (its group comments
    name the argument classes: RLScriptArguments, PretrainScriptArguments or RustyScriptArguments)."""
    values = yaml.safe_load(recipe) if recipe else None
    if not isinstance(values, dict):
        return RecipeFacts()
    rl = "RLScriptArguments" in recipe or "reward_funcs" in values
    names = list(values.get("reward_funcs") or (["execution", "protocol"] if rl else []))  # the RL default
    weights = values.get("reward_weights") or [1.0] * len(names)
    if values.get("dataset_name"):
        data = []
    elif "PretrainScriptArguments" in recipe:
        data = [CODE_CORPUS_DATASET]
    elif rl:
        data = [TASKS_DATASET] + ([TERMINAL_DATASET] if values.get("num_terminal") else [])
    else:  # SFT: the dialogs, terminal requests and training tasks that the recipe asked for
        data = (([DIALOGS_DATASET] if values.get("num_dialogs", 1) else [])
                + ([TERMINAL_DATASET] if values.get("num_terminal") else [])
                + ([TASKS_DATASET] if values.get("task_repeats", 1) else []))  # fmt: skip
    hub = [values["dataset_name"]] if values.get("dataset_name") else []
    return RecipeFacts(values.get("model_name_or_path"), list(zip(names, map(float, weights))), hub, data)


@dataclass
class CardEvaluation:
    """One evaluation's part of a card: a body section (table + settings) and its model-index rows."""

    title: str
    section: str
    results: list[EvalResult] = field(default_factory=list)


def _task_result(language: str, metric: str, value: float, name: str, args: dict) -> EvalResult:
    return EvalResult(
        task_type="text-generation", dataset_type=TASKS_DATASET,
        dataset_name=f"Rusty tasks, held-out {'(all languages)' if language == 'all' else language}",
        dataset_config=language, dataset_split="test", metric_type=metric, metric_name=name, metric_value=float(value),
        metric_args=args,
    )


def reward_gain_evaluation(report: dict) -> CardEvaluation:
    """The held-out reward before and after RL (``recipes/reward_gain.py``'s JSON)."""
    s = report["settings"]
    weights = s.get("reward_weights") or [1.0] * len(s["reward_names"])
    rows = ["| model | mean total reward | per reward |", "|---|---:|---|"]
    for name in ("before", "after"):
        score = report[name]
        parts = ", ".join(f"{k} {v:.3f}" for k, v in score.get("per_reward", {}).items())
        rows.append(f"| {name} RL | {score['mean']:.3f} ± {score['stderr']:.3f} | {parts} |")
    rows.append(f"| **gain** | **{report['gain']:+.3f} ± {report['gain_stderr']:.3f}** ({report['gain_in_stderrs']:.1f} SE) | |")
    languages = ", ".join(s.get("languages") or ["python"])
    settings = (f"Held-out {languages} tasks, {s['num_samples']} samples each at temperature {s['temperature']}, at most "
                f"{s['max_new_tokens']} new tokens, seed {s['seed']}, the same prompts and seed for both models; rewards "
                + ", ".join(f"`{n}` x {w:g}" for n, w in zip(s["reward_names"], weights))
                + f"; n = {report['after'].get('num_samples', '?')} samples per model. Means ± standard errors.")
    args = {"num_samples": s["num_samples"], "temperature": s["temperature"], "rewards": list(s["reward_names"]),
            "reward_weights": [float(w) for w in weights], "seed": s["seed"]}
    language = "+".join(s.get("languages") or ["python"])
    results = [_task_result(language, "reward_gain", report["gain"], "held-out reward gain from RL", args),
               _task_result(language, "reward_gain_stderr", report["gain_stderr"], "standard error of that gain", args)]
    return CardEvaluation("Held-out reward before and after RL", "\n".join(rows) + "\n\n" + settings, results)


def pass_at_k_evaluation(report: dict) -> CardEvaluation:
    """pass@k, compile rate and protocol validity on the held-out tasks (``recipes/evaluate.py``'s JSON)."""
    s = report["settings"]
    ks = [f"pass@{k}" for k in s["k"]]
    rows = [f"| language | difficulty | tasks | {' | '.join(ks)} | compile rate |", "|---|---|---:|" + "---:|" * (len(ks) + 1)]
    results = []
    for language, values in report["aggregate"].items():
        if language == "protocol":
            continue
        for difficulty, row in [("all", values), *values.get("by_difficulty", {}).items()]:
            cells = [f"{row[m]:.3f} ± {row['stderr'][m]:.3f}" for m in (*ks, "compile_rate")]
            rows.append(f"| {language} | {difficulty} | {row['num_tasks']} | {' | '.join(cells)} |")
        args = {"num_samples": s["num_samples"], "temperature": s["temperature"], "top_p": s.get("top_p")}
        results += [_task_result(language, m, values[m], f"{m} ({values['num_tasks']} tasks)" if m.startswith("pass@")
                                 else "compile rate", args) for m in (*ks, "compile_rate")]
    for language, reason in report.get("skipped", {}).items():
        rows.append(f"| {language} | skipped: {reason} | | {' | '.join('' for _ in ks)} | |")
    protocol = report["aggregate"].get("protocol")
    text = "\n".join(rows)
    if protocol:
        text += f"\n\nProtocol validity: {protocol['protocol_validity']:.3f} of {protocol['num_completions']} completions."
        results.append(_task_result("all", "protocol_validity", protocol["protocol_validity"], "protocol validity",
                                    {"num_samples": s["num_samples"], "temperature": s["temperature"]}))
    text += (f"\n\nSettings: {s['num_samples']} samples per task at temperature {s['temperature']} (top-p {s.get('top_p')}),"
             f" at most {s['max_new_tokens']} new tokens, seed {s['seed']}, split `{s['split']}`"
             + (f", first {s['max_tasks']} tasks per language" if s.get("max_tasks") else "")
             + ". pass@k is the unbiased estimator (every test must pass); compile rate: Python parses, rustc builds; "
             "protocol validity: the share of completions that are exactly one valid action. Means ± standard errors over tasks.")
    return CardEvaluation("Held-out coding tasks", text, results)


def terminal_evaluation(report: dict) -> CardEvaluation:
    """First-action and episode success on the held-out terminal requests (``evaluate.py --suite terminal``)."""
    from rusty_hf.evaluation.terminal import format_terminal_comparison, format_terminal_table

    s = report["settings"]
    text = format_terminal_table(report)
    rows = ["| intent | part | first-action success | episode success |", "|---|---|---:|---:|"]
    for name, block in report["intents"].items():
        first, episode = block["first_action_success"], block["episode_success"]
        rows.append(f"| {name} | {block['part']} | {first['mean']:.2f} (n={first['n']}) | "
                    + ("-" if episode["mean"] is None else f"{episode['mean']:.2f} (n={episode['n']})") + " |")
    comparison = {k: v for k, v in report.get("comparison", {}).items() if k != "baseline"}
    if comparison:
        text += "\n\nAgainst the model before RL, paired over the same requests:\n\n" + format_terminal_comparison(comparison)
    text += ("\n\n<details><summary>Per intent</summary>\n\n" + "\n".join(rows) + "\n\n</details>"
             f"\n\nSettings: {s['requests']} held-out requests (phrasings never trained; `seen_values` names files and "
             "symbols that training used, `new_values` only names it never saw, `new_intents` three intents never "
             f"trained), {s['decoding']} decoding, constrained to the protocol"
             + (", with the copy bias for names in the request" if s.get("copy_bias") else "")
             + f", at most {s['max_new_tokens']} new tokens and {s['max_steps']} actions per request, seed {s['seed']}."
             " Each action is judged by executing it in the sandbox on a fresh copy of the request's fixture repository"
             " (the listing, the count, the test run, the files left behind), a final MSG by the fact it states."
             " Means ± standard errors over requests.")
    args = {"requests": s["requests"], "decoding": s["decoding"], "copy_bias": bool(s.get("copy_bias")), "seed": s["seed"]}
    results = []
    for part, block in [("all", report["overall"]), *report["parts"].items()]:
        for metric in ("first_action_success", "episode_success"):
            if block[metric]["mean"] is not None:
                results.append(EvalResult(
                    task_type="text-generation", dataset_type=TERMINAL_DATASET, dataset_name=f"Rusty terminal requests, held-out ({part})",
                    dataset_config=part, dataset_split="test", metric_type=metric, metric_name=metric.replace("_", " "),
                    metric_value=float(block[metric]["mean"]), metric_args=args))  # fmt: skip
    return CardEvaluation("Held-out terminal requests", text, results)


def _decoder(settings: dict) -> str:
    """How a terminal report's replies were decoded, in words: rusty_hf's decoder or transformers' own."""
    if settings.get("constrained", True):
        return ("rusty_hf's decoder (`rusty_hf.inference.decoding.reply_processors`: constrained to the protocol"
                + (", the copy bias" if settings.get("copy_bias") else "") + ", the repeat bound)")
    return "plain transformers `generate` (no rusty_hf processor)"


def _first_action_results(report: dict, name: str, split: str, config: str = "{part}") -> list[EvalResult]:
    """Model-index rows of a terminal report's first-action success per part; ``config`` names each part's dataset
    config apart from the held-out block's (the Hub groups rows by dataset type, config and split)."""
    s = report["settings"]
    args = {"requests": s["requests"], "decoding": s["decoding"], "constrained": bool(s.get("constrained", True)),
            "copy_bias": bool(s.get("copy_bias")), "seed": s["seed"]}  # fmt: skip
    return [EvalResult(task_type="text-generation", dataset_type=TERMINAL_DATASET, dataset_name=f"{name} ({part})",
                       dataset_config=config.format(part=part), dataset_split=split, metric_type="first_action_success",
                       metric_name="first action success", metric_value=float(block["first_action_success"]["mean"]), metric_args=args)
            for part, block in [("all", report["overall"]), *report["parts"].items()]
            if block["first_action_success"]["mean"] is not None]  # fmt: skip


def terminal_plain_evaluation(report: dict) -> CardEvaluation:
    """The held-out terminal requests decoded by transformers alone (``evaluate.py --suite terminal --decoder plain``):
    what a user gets from the model without rusty_hf's decoder."""
    from rusty_hf.evaluation.terminal import format_terminal_table

    text = (format_terminal_table(report) + "\n\nThe same held-out requests as above, decoded by "
            f"{_decoder(report['settings'])}, greedy: what `model.generate` gives when the checkpoint is loaded with "
            "transformers alone (`trust_remote_code=True`), without rusty_hf's logits processors. The numbers of the "
            "block above need rusty_hf's decoder.")
    return CardEvaluation("Held-out terminal requests, plain transformers decoding", text,
                          _first_action_results(report, "Rusty terminal requests, held-out, plain decoding", "test", "{part}-plain"))


def terminal_blind_evaluation(report: dict) -> CardEvaluation:
    """The blind suite (``evaluate.py --suite terminal --terminal_split blind``): requests written without sight of the
    training phrasings, over the catalogue's intents and outside it, measured and never tuned on."""
    from rusty_hf.evaluation.terminal import format_terminal_table

    text = (format_terminal_table(report) + "\n\nRequests written by someone who saw only the intents' one-line "
            "descriptions and the fixtures, never the training phrasings or the held-out split (`rusty_hf/data/terminal/"
            f"blind/`); `outside` holds requests no intent covered when the suite was written (some kinds, such as "
            "copying a file or the current branch, have been trained since). Decoded by {_decoder(report['settings'])}, greedy; "
            "judged by execution as above. Decoding and data changes are measured here, never tuned on it.")
    return CardEvaluation("Blind terminal requests", text,
                          _first_action_results(report, "Rusty terminal requests, blind", "test", "blind-{part}"))


def terminal_conversations_evaluation(report: dict) -> CardEvaluation:
    """The conversation suite (``evaluate.py --suite terminal --terminal_split conversations``)."""
    from rusty_hf.evaluation.conversations import format_conversation_table

    s = report["settings"]
    text = (format_conversation_table(report) + f"\n\n{s.get('sessions', '?')} sessions of requests in a row on one "
            "work dir, written blind. A turn is done right when its first action passes on the work dir as the "
            "conversation left it and its closing message is true (it states only what the session showed) and repeats "
            "no three-word phrase more than three times; each turn is also played alone from the reference state. "
            f"Decoded by {_decoder(s)}, greedy.")
    args = {"sessions": s.get("sessions"), "turns": s.get("turns"), "decoding": s.get("decoding", "greedy")}
    results = [EvalResult(task_type="text-generation", dataset_type=TERMINAL_DATASET, dataset_name="Rusty terminal conversations",
                          dataset_config="conversations", dataset_split="test", metric_type=metric, metric_name=metric.replace("_", " "),
                          metric_value=float(report["overall"][metric]["mean"]), metric_args=args)
               for metric in ("done_right", "done_right_alone") if report["overall"].get(metric, {}).get("mean") is not None]  # fmt: skip
    return CardEvaluation("Terminal conversations", text, results)


# Report file in the model folder -> the reader that turns it into a card block, in the card's order.
EVALUATIONS: dict[str, Callable[[dict], CardEvaluation]] = {
    "reward_gain.json": reward_gain_evaluation,
    "eval_results.json": pass_at_k_evaluation,
    "terminal_eval.json": terminal_evaluation,
    "terminal_plain_eval.json": terminal_plain_evaluation,
    "terminal_blind_eval.json": terminal_blind_evaluation,
    "terminal_conversations_eval.json": terminal_conversations_evaluation,
}


def read_evaluations(folder: Path) -> list[CardEvaluation]:
    """Every evaluation block whose report file the folder holds, in `EVALUATIONS` order."""
    found = []
    for filename, reader in EVALUATIONS.items():
        path = folder / filename
        if path.is_file():
            found.append(reader(json.loads(path.read_text(encoding="utf-8"))))
    return found


def _metric_results(metrics: Metrics) -> list[EvalResult]:
    return [
        EvalResult(task_type="text-generation", dataset_type=f"rusty-{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')}",
                   dataset_name=name, dataset_split="test", metric_type=metric, metric_name=metric, metric_value=float(value))
        for name, values in metrics.items() for metric, value in values.items()
    ]


def _extra_metrics(card: ModelCard | None) -> dict[str, dict[str, float]]:
    """The metrics an earlier card carried that no report file backs (e.g. pretraining's held-out loss)."""
    metrics: dict[str, dict[str, float]] = {}
    for result in (card.data.eval_results or []) if card is not None else []:
        if result.dataset_type not in RUSTY_DATASETS:
            metrics.setdefault(result.dataset_name, {})[result.metric_type] = result.metric_value
    return metrics


def _read_recipe(folder: Path, recipe: str | os.PathLike | None) -> str | None:
    """The recipe YAML (given as text or a path, else the folder's), local paths scrubbed, saved to the folder."""
    if isinstance(recipe, os.PathLike) or (isinstance(recipe, str) and "\n" not in recipe and Path(recipe).is_file()):
        recipe = Path(recipe).read_text(encoding="utf-8")
    if recipe is None and (folder / RECIPE_FILE).is_file():
        recipe = (folder / RECIPE_FILE).read_text(encoding="utf-8")
    if recipe is not None:
        recipe = scrub_paths(recipe)
        (folder / RECIPE_FILE).write_text(recipe, encoding="utf-8")
    return recipe


def write_model_card(
    folder: str | os.PathLike,
    *,
    metrics: Metrics | None = None,
    recipe: str | os.PathLike | None = None,
    base_model: str | None = None,
    datasets: Sequence[str] | None = None,
    tags: Sequence[str] = DEFAULT_TAGS,
    license: str = "agpl-3.0",
    model_name: str | None = None,
) -> ModelCard:
    """Write ``folder/README.md`` (metadata + body) from the folder's files and return the card.

    Args:
        folder: a saved model folder (``save_pretrained`` output).
        metrics: extra ``{evaluation set: {metric: value}}`` no report file carries (e.g. pretraining's
            held-out loss); None keeps an existing card's.
        recipe: the YAML that produced the model (text or a path); None keeps ``training_recipe.yaml``.
        base_model: Hub id the model was fine-tuned from; None keeps an existing card's.
        datasets: Hub dataset ids trained on; None keeps an existing card's. The recipe's ``dataset_name``
            is added; the names of generated data (`RUSTY_DATASETS`) never are (older cards had them).
        tags: Hub tags, merged with an existing card's.
        license: an SPDX-style Hub license id.
        model_name: the card title and model-index name (default: the folder name, or the existing card's).
    """
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder} has no config.json: write the card into a folder saved with save_pretrained")
    # Evaluations of one model run side by side (the quickstart's last stages): one card write at a time, each reading
    # every report then on disk, so the last one holds them all; a reader never sees half a card.
    with _card_lock(folder):
        card = _build_card(folder, metrics, recipe, base_model, datasets, tags, license, model_name)
        _write_whole(folder / "README.md", str(card))  # what ModelCard.save writes
    return card


def save_report(path: str | os.PathLike, report: dict) -> None:
    """``report`` as JSON at ``path``, written whole: a card built beside it by another process reads the old report
    or the new one, never half of one."""
    _write_whole(Path(path), json.dumps(report, indent=2) + "\n")


def _write_whole(path: Path, text: str) -> None:
    """``text`` into a temporary file beside ``path``, renamed into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


@contextlib.contextmanager
def _card_lock(folder: Path):
    try:
        import fcntl
    except ImportError:  # Windows: card writes are not serialised across processes
        yield
        return
    fd = os.open(folder, os.O_RDONLY)  # the folder itself: no lock file to upload with it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # drops the lock


def _build_card(folder: Path, metrics, recipe, base_model, datasets, tags, license, model_name) -> ModelCard:
    old = ModelCard.load(folder / "README.md", ignore_metadata_errors=True) if (folder / "README.md").is_file() else None
    metrics = dict(metrics) if metrics is not None else _extra_metrics(old)
    name = model_name or (old.data.model_name if old is not None and old.data.model_name else None) or folder.resolve().name
    recipe = _read_recipe(folder, recipe)
    facts = recipe_facts(recipe)
    evaluations = read_evaluations(folder)
    if datasets is None:
        datasets = old.data.datasets if old is not None and old.data.datasets else []
    # What the base saw, then this run's data: Hub datasets only, so no name points at a dataset that is not there.
    datasets = [d for d in dict.fromkeys([*datasets, *facts.datasets]) if d not in RUSTY_DATASETS]
    data = ModelCardData(
        license=license, library_name="transformers", pipeline_tag="text-generation",
        tags=list(dict.fromkeys([*tags, *((old.data.tags or []) if old is not None else [])])),
        base_model=base_model or (old.data.base_model if old is not None else None), datasets=datasets or None,
        model_name=name, eval_results=[r for e in evaluations for r in e.results] + _metric_results(metrics) or None,
    )
    from rusty_hf.trainers.training_log import LOG_FILENAME, summarise_log  # lazily: trainers import TRL

    text = body(name, name if "/" in name else folder.resolve().name, recipe, facts, evaluations, metrics, license,
                curves=CURVES_FILE if (folder / CURVES_FILE).is_file() else None, base_model=data.base_model,
                run_summary=summarise_log(folder / LOG_FILENAME))
    return ModelCard(f"---\n{data.to_yaml()}\n---\n{text}")


__all__ = [
    "CODE_CORPUS_DATASET", "CardEvaluation", "DEFAULT_TAGS", "DIALOGS_DATASET", "EVALUATIONS", "RecipeFacts",
    "TASKS_DATASET", "TERMINAL_DATASET", "pass_at_k_evaluation", "read_evaluations", "recipe_facts", "reward_gain_evaluation",
    "save_report", "terminal_blind_evaluation", "terminal_conversations_evaluation", "terminal_evaluation",
    "terminal_plain_evaluation", "write_model_card",
]
