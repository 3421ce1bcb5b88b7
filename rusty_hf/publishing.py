"""Publish a Rusty checkpoint: write its model card, push the folder to the Hub, finish a training run.

A saved folder (weights, ``auto_map`` + modelling code, tokenizer) gets a ``README.md`` whose YAML
metadata the Hub indexes (license, ``library_name: transformers``, tags, ``pipeline_tag``,
``model-index`` with the evaluation metrics) and whose body says what Rusty is, how to load it with
``trust_remote_code=True``, the action protocol, the training recipe and the metrics table::

    from rusty_hf.publishing import write_model_card, push_folder
    write_model_card("outputs/tiny-sft", metrics={"python held-out tasks": {"pass@1": 0.12}})
    push_folder("outputs/tiny-sft", "me/rusty-tiny")          # honours HF_ENDPOINT and HF_TOKEN

The recipes end with one call that saves, writes the card and, when ``push_to_hub`` is set, pushes::

    finalize_output(trainer, script_args, training_args, model_args=model_args)

A card is rebuilt, not appended to: arguments left as None keep what the folder already has (the
recipe in ``training_recipe.yaml``, metrics/base model/datasets from the previous README metadata),
so ``recipes/evaluate.py --update_model_card`` adds metrics without losing the recipe.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import os
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from huggingface_hub import CommitInfo, EvalResult, HfApi, ModelCard, ModelCardData

if TYPE_CHECKING:
    from transformers import Trainer, TrainingArguments

DEFAULT_TAGS: tuple[str, ...] = ("rusty", "rwkv", "tiny-rwkv", "trl", "code", "agent")
RECIPE_FILE = "training_recipe.yaml"
# What transformers' Trainer.push_to_hub leaves out of an upload, plus editor/OS litter.
IGNORE_PATTERNS = ["_*", "checkpoint-*", "*/checkpoint-*", ".DS_Store"]
# Argument names whose values must never reach a public card.
_SECRET_FIELD = re.compile(r"hub_token|api_key|secret|password|credential", re.IGNORECASE)

Metrics = Mapping[str, Mapping[str, float]]  # {evaluation set: {metric name: value}}


def _existing_card(folder: Path) -> ModelCard | None:
    path = folder / "README.md"
    return ModelCard.load(path, ignore_metadata_errors=True) if path.is_file() else None


def _metrics_from_card(card: ModelCard | None) -> dict[str, dict[str, float]]:
    metrics: dict[str, dict[str, float]] = {}
    for result in (card.data.eval_results or []) if card is not None else []:
        metrics.setdefault(result.dataset_name, {})[result.metric_type] = result.metric_value
    return metrics


def _eval_results(metrics: Metrics) -> list[EvalResult]:
    return [
        EvalResult(
            task_type="text-generation",
            dataset_type=f"rusty-{re.sub(r'[^a-z0-9]+', '-', dataset.lower()).strip('-')}",
            dataset_name=dataset,
            dataset_split="test",
            metric_type=name,
            metric_name=name,
            metric_value=float(value),
        )
        for dataset, values in metrics.items()
        for name, value in values.items()
    ]


def _read_recipe(folder: Path, recipe: str | os.PathLike | None) -> str | None:
    """The recipe YAML: given as text or a path, else the one the folder already holds."""
    if isinstance(recipe, os.PathLike) or (isinstance(recipe, str) and "\n" not in recipe and Path(recipe).is_file()):
        recipe = Path(recipe).read_text(encoding="utf-8")
    if recipe is not None:
        (folder / RECIPE_FILE).write_text(recipe, encoding="utf-8")
        return recipe
    path = folder / RECIPE_FILE
    return path.read_text(encoding="utf-8") if path.is_file() else None


def _metrics_table(metrics: Metrics) -> str:
    if not metrics:
        return "Not evaluated yet: `python recipes/evaluate.py --model_name_or_path <this folder> --update_model_card`."
    rows = [f"| {dataset} | {name} | {float(value):.4f} |" for dataset, values in metrics.items() for name, value in values.items()]
    return "\n".join(["| evaluation set | metric | value |", "|---|---|---:|", *rows])


def _card_body(title: str, repo_hint: str, recipe: str | None, metrics: Metrics, license: str) -> str:
    recipe_block = (
        f"The arguments that produced this checkpoint (TRL-parser YAML, replayable with `--config`):\n\n```yaml\n{recipe.strip()}\n```"
        if recipe
        else "No recipe was recorded for this checkpoint."
    )
    return f"""
# {title}

Rusty is a tiny, blunt terminal coding assistant: a small RWKV-4 language model (`TinyRWKVForCausalLM`,
model type `tiny_rwkv`) that answers every turn with exactly one JSON action. It was built with
[rusty_hf](https://github.com/rusty-hf/rusty_hf): transformers for the model, TRL trainers for SFT and
RL, rewards from sandboxed test runs and `rustc`.

## How to load

The folder carries its modelling code (`auto_map`), so transformers loads it without rusty_hf installed:

```python
from transformers import AutoModelForCausalLM, AutoTokenizer

model = AutoModelForCausalLM.from_pretrained("{repo_hint}", trust_remote_code=True)
tokenizer = AutoTokenizer.from_pretrained("{repo_hint}")
inputs = tokenizer.apply_chat_template(
    [{{"role": "user", "content": "run the tests"}}], add_generation_prompt=True, return_tensors="pt", return_dict=True
)
out = model.generate(**inputs, max_new_tokens=64)
print(tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True))
```

Generation stops at `<|end|>` (end of turn) or `<|endoftext|>`; `generation_config.json` already lists both.

## The protocol

Each assistant turn is one JSON object and nothing else:

- `{{"action": "MSG", "message": "..."}}`: text for the user;
- `{{"action": "CMD", "command": "..."}}`: one shell command for the host to run;
- `{{"action": "EDIT", "path": "...", "content": "..."}}`: the complete new content of a file.

A host that executes CMD or EDIT should do so in a sandbox: this model writes code it has not run.

## Evaluation

{_metrics_table(metrics)}

pass@k is the unbiased estimator over held-out tasks (all tests must pass); protocol validity is the
share of completions that parse as exactly one valid action.

## Training recipe

{recipe_block}

## License

{license.upper() if license.islower() else license}. The weights and code are free software; a network
service built on them must offer its users the source (AGPL-3.0 section 13).
"""


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
    """Write ``folder/README.md`` (metadata + body) and return the card.

    Args:
        folder: a saved model folder (``save_pretrained`` output).
        metrics: ``{evaluation set: {metric: value}}``; None keeps the metrics of an existing card.
        recipe: the YAML that produced the model (text or a path); None keeps ``training_recipe.yaml``.
        base_model: Hub id the model was fine-tuned from, if any; None keeps an existing card's.
        datasets: Hub dataset ids trained on; None keeps an existing card's.
        tags: Hub tags, merged with an existing card's.
        license: an SPDX-style Hub license id.
        model_name: the card title and model-index name (default: the folder name).
    """
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder} has no config.json: write the card into a folder saved with save_pretrained")
    old = _existing_card(folder)
    metrics = dict(metrics) if metrics is not None else _metrics_from_card(old)
    name = model_name or (old.data.model_name if old is not None and old.data.model_name else None) or folder.resolve().name
    data = ModelCardData(
        license=license,
        library_name="transformers",
        pipeline_tag="text-generation",
        tags=list(dict.fromkeys([*tags, *((old.data.tags or []) if old is not None else [])])),
        base_model=base_model or (old.data.base_model if old is not None else None),
        datasets=list(datasets) if datasets is not None else (old.data.datasets if old is not None else None),
        model_name=name,
        eval_results=_eval_results(metrics) or None,
    )
    body = _card_body(name, name if "/" in name else f"path/to/{name}", _read_recipe(folder, recipe), metrics, license)
    card = ModelCard(f"---\n{data.to_yaml()}\n---\n{body}")
    card.save(folder / "README.md")
    return card


def push_folder(
    folder: str | os.PathLike,
    repo_id: str,
    *,
    token: str | None = None,
    private: bool = False,
    commit_message: str = "Upload Rusty checkpoint",
    revision: str | None = None,
    endpoint: str | None = None,
) -> CommitInfo:
    """Create ``repo_id`` if needed and upload ``folder`` in one commit; return the ``CommitInfo``.

    A folder without a README gets a default card first, so no push goes out without one.
    ``endpoint`` defaults to ``HF_ENDPOINT`` (else huggingface.co), ``token`` to ``HF_TOKEN`` / the saved login.
    """
    folder = Path(folder)
    if not (folder / "config.json").is_file():
        raise FileNotFoundError(f"{folder} is not a saved model folder (no config.json): save the model before pushing")
    if not (folder / "README.md").is_file():
        write_model_card(folder)
    api = HfApi(endpoint=endpoint, token=token)
    repo = api.create_repo(repo_id, private=private, exist_ok=True)
    return api.upload_folder(
        repo_id=repo.repo_id,
        folder_path=folder,
        commit_message=commit_message,
        revision=revision,
        ignore_patterns=IGNORE_PATTERNS,
    )


def _plain(value: object) -> object:
    """A YAML-safe copy of an argument value (enums by value, paths as text, containers recursed)."""
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


@contextlib.contextmanager
def _accelerate_state_kept() -> Iterator[None]:
    """Restore accelerate's process-wide state after building a TrainingArguments.

    Its `__post_init__` resets that state (`AcceleratorState._reset_state` in `_setup_devices`); in the
    middle of a run this wiped the trainer's FSDP plugin, and `Trainer.save_model` then failed on it."""
    try:
        from accelerate.state import AcceleratorState, PartialState
    except ImportError:
        yield
        return
    saved = [(cls._shared_state, dict(cls._shared_state)) for cls in (PartialState, AcceleratorState)]
    try:
        yield
    finally:
        for shared, state in saved:
            shared.clear()
            shared.update(state)


def _changed_fields(args: object) -> dict:
    """The fields of a dataclass that differ from a default instance's, secrets left out.

    Comparing with a default-constructed instance, not the declared defaults, keeps values that
    ``__post_init__`` derives (resolved precision, report_to lists, ...) out of the recipe.
    """
    # TrainingArguments validates its precision against the hardware, so the reference shares use_cpu.
    same_device = {"use_cpu": args.use_cpu} if hasattr(args, "use_cpu") else {}
    try:
        # A default TRL config sets the deprecated `gradient_checkpointing=True`, and transformers warns
        # about it on construction: this reference instance is ours, the user's config is not affected.
        with warnings.catch_warnings(), _accelerate_state_kept():
            warnings.simplefilter("ignore", FutureWarning)
            reference = type(args)(**same_device)
    except (TypeError, ValueError):  # required fields, or a check that fails: use the declared defaults
        reference = None
    changed = {}
    for f in dataclasses.fields(args):
        if not f.init or _SECRET_FIELD.search(f.name):
            continue
        if reference is not None:
            default = getattr(reference, f.name, dataclasses.MISSING)
        else:
            default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        value = _plain(getattr(args, f.name))
        if default is dataclasses.MISSING or value != _plain(default) or (f.name == "use_cpu" and value):
            changed[f.name] = value
    return changed


def recipe_yaml(script_args: object, training_args: object, model_args: object | None = None) -> str:
    """The effective run configuration as TRL-parser YAML: what differs from the defaults, grouped."""
    groups = [("Model arguments", model_args), ("Data and script arguments", script_args), ("Trainer config", training_args)]
    parts = []
    for title, args in groups:
        if args is not None and dataclasses.is_dataclass(args):
            fields = _changed_fields(args)
            if fields:
                parts.append(f"# {title} ({type(args).__name__})\n" + yaml.safe_dump(fields, sort_keys=False))
    return "\n".join(parts)


def finalize_output(
    trainer: Trainer,
    script_args: object,
    training_args: TrainingArguments,
    metrics: Metrics | None = None,
    *,
    model_args: object | None = None,
    recipe: str | os.PathLike | None = None,
) -> Path:
    """End a recipe: save model + tokenizer, write our model card and, with ``push_to_hub``, push them.

    Call it on every process after ``trainer.train()`` (saving gathers sharded weights); only the main
    process writes and uploads. ``recipe`` (YAML text or path) defaults to :func:`recipe_yaml` of the
    parsed arguments. The tokenizer is saved when it is the trainer's ``processing_class``. Metrics of
    an earlier card in ``output_dir`` are dropped: they measured other weights. Returns the output folder.
    """
    output_dir = Path(training_args.output_dir)
    recipe = recipe if recipe is not None else recipe_yaml(script_args, training_args, model_args)
    base_model = getattr(model_args, "model_name_or_path", None)
    base_model = base_model if base_model and not Path(base_model).exists() else None  # local paths mean nothing on the Hub
    trainer_tags = [t for t in getattr(trainer, "_tag_names", []) if isinstance(t, str)]

    def write_card(*_args, **_kwargs) -> None:
        if trainer.is_world_process_zero():
            repo_id = getattr(trainer, "hub_model_id", None) or training_args.hub_model_id
            write_model_card(output_dir, metrics=metrics or {}, recipe=recipe, base_model=base_model,
                             tags=[*DEFAULT_TAGS, *trainer_tags], model_name=repo_id if training_args.push_to_hub else None)

    # transformers' Trainer.push_to_hub (which save_model runs when push_to_hub is set) saves the model,
    # then calls self.create_model_card(model_name=..., **kwargs) -- where TRL's _BaseTrainer writes its
    # generic README.md -- and then uploads output_dir. Overriding that one hook on this instance puts our
    # card into the same commit; an instance override rather than a subclass because the recipes use
    # SFT, GRPO, RLOO and PPO trainers alike, and the rest of the push (repo, token, revision) stays upstream's.
    trainer.create_model_card = write_card
    from rusty_hf.training.sharding import save_full_weights

    save_full_weights(trainer)  # FSDP: the folder gets the whole model, not per-process shards
    trainer.save_model(str(output_dir))
    if not training_args.push_to_hub:
        write_card()
    if trainer.is_world_process_zero():
        print(f"saved model, tokenizer and model card to {output_dir}"
              + (f"; pushed to {trainer.hub_model_id}" if training_args.push_to_hub else ""))
    return output_dir


__all__ = ["DEFAULT_TAGS", "finalize_output", "push_folder", "recipe_yaml", "write_model_card"]
