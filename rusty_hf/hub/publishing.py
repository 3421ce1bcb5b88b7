"""Publish a Rusty checkpoint: push the folder to the Hub, finish a training run (card, upload).

    from rusty_hf.hub.publishing import write_model_card, push_folder
    write_model_card("outputs/tiny-sft")                      # rusty_hf.hub.model_card, re-exported here
    push_folder("outputs/tiny-sft", "me/rusty-tiny")          # honours HF_ENDPOINT and HF_TOKEN

The recipes end with one call that saves, writes the card and, when ``push_to_hub`` is set, pushes::

    finalize_output(trainer, script_args, training_args, model_args=model_args)

The card (`rusty_hf.hub.model_card`) is rebuilt from the folder's files: the recipe in
``training_recipe.yaml`` (written here, as TRL-parser YAML of the arguments that differ from the
defaults, secrets left out), the curves, and the evaluation reports later steps add
(``recipes/reward_gain.py``, ``recipes/evaluate.py --update_model_card``). A checkpoint fine-tuned from
a local folder inherits that folder's Hub ``base_model`` and ``datasets`` when its card names them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import os
import re
import warnings
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from huggingface_hub import CommitInfo, HfApi, ModelCard

from rusty_hf.hub.model_card import DEFAULT_TAGS, EVALUATIONS, Metrics, write_model_card

if TYPE_CHECKING:
    from transformers import Trainer, TrainingArguments

# What transformers' Trainer.push_to_hub leaves out of an upload, plus editor/OS litter.
IGNORE_PATTERNS = ["_*", "checkpoint-*", "*/checkpoint-*", ".DS_Store"]
# Argument names whose values must never reach a public card.
_SECRET_FIELD = re.compile(r"hub_token|api_key|secret|password|credential", re.IGNORECASE)


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


def base_lineage(model_name_or_path: str | None) -> tuple[str | None, list[str] | None]:
    """(base_model, datasets) for a card: a Hub id stands as it is; a local folder passes on the Hub
    ``base_model`` and the ``datasets`` its own card names (a local path means nothing on the Hub)."""
    if not model_name_or_path:
        return None, None
    folder = Path(model_name_or_path).expanduser()
    if not folder.exists():
        return model_name_or_path, None
    readme = folder / "README.md"
    if not readme.is_file():
        return None, None
    data = ModelCard.load(readme, ignore_metadata_errors=True).data
    hub_name = data.model_name if data.model_name and "/" in data.model_name else None
    return hub_name or data.base_model, data.datasets


def drop_stale_reports(output_dir: Path) -> None:
    """Remove evaluation reports of earlier weights from ``output_dir``: the card would show them as this model's."""
    for name in EVALUATIONS:
        if (output_dir / name).is_file():
            (output_dir / name).unlink()
            print(f"removed {output_dir / name}: it measured the weights this run replaced")


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
    base_model, datasets = base_lineage(getattr(model_args, "model_name_or_path", None))
    trainer_tags = [t for t in getattr(trainer, "_tag_names", []) if isinstance(t, str)]

    def write_card(*_args, **_kwargs) -> None:
        if trainer.is_world_process_zero():
            drop_stale_reports(output_dir)
            repo_id = getattr(trainer, "hub_model_id", None) or training_args.hub_model_id
            write_model_card(output_dir, metrics=metrics or {}, recipe=recipe, base_model=base_model, datasets=datasets,
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


__all__ = ["DEFAULT_TAGS", "base_lineage", "finalize_output", "push_folder", "recipe_yaml", "write_model_card"]
