"""The prose of a Rusty model card (`rusty_hf.hub.model_card` builds the metadata and calls `body`).

    text = body(title, load_name, recipe, facts, evaluations, metrics, "agpl-3.0", curves="training_curves.png")

Sections: what Rusty is; how to load it with transformers alone (a snippet that runs as written in a
process without rusty_hf: ``tests/test_snippets.py`` runs it); the action protocol; intended use and
limitations; training (base checkpoint, data, reward functions with their weights, the curves, the
recipe); one subsection per evaluation; license. `scrub_paths` keeps local absolute paths out of it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

SOURCE_URL = "https://github.com/rusty-hf/rusty_hf"  # pyproject.toml's [project.urls] Source

# Stable names of the data rusty_hf generates from its repository (the model-index's dataset types): the same
# name for the same kind of data in every run, no counts or dates. They are not Hub datasets, so they are not
# written as Hub ids (no "owner/name"): each names the generator in this repository, which the card's body
# links; the card's `datasets:` metadata never carries them.
TASKS_DATASET = "rusty_hf.tasks"
DIALOGS_DATASET = "rusty_hf.data.dialogs"
CODE_CORPUS_DATASET = "rusty_hf.code_corpus"
TERMINAL_DATASET = "rusty_hf.data.terminal"
GENERATED_DATA = {  # name -> (what it is, the repository path that generates it)
    TASKS_DATASET: ("coding tasks, Python and Rust: prompt, tests, reference solution, difficulty 1-5; a fixed "
                    "train/test split, and SFT and RL see only the train split", "tasks"),
    DIALOGS_DATASET: ("synthetic MSG / CMD / EDIT dialogs", "rusty_hf/data/dialogs.py"),
    CODE_CORPUS_DATASET: ("deduplicated Python and Rust source files", "recipes/build_code_corpus.py"),
    TERMINAL_DATASET: ("terminal requests on small fixture repositories: intents, phrasings, argument values, reference "
                       "actions and executed checks; held-out phrasings, values and intents never reach training",
                       "rusty_hf/data/terminal"),
}


def _data_lines(facts) -> list[str]:
    """One line per kind of data the run used: a generator in the repository (linked), or a Hub dataset."""
    lines = []
    for name in facts.data:
        what, path = GENERATED_DATA[name]
        kind, shown = ("blob", path) if path.endswith(".py") else ("tree", f"{path}/")
        lines.append(f"- {what}: built from [`{shown}`]({SOURCE_URL}/{kind}/main/{path}) in the rusty_hf repository "
                     "(not a Hub dataset)")
    return lines + [f"- [`{d}`](https://huggingface.co/datasets/{d}) (Hub dataset)" for d in facts.datasets]


def _local(path: str) -> str:
    """An absolute local path made relative to the working directory, else cut to its last part."""
    full = Path(os.path.expanduser(path))
    try:
        return full.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return full.name


def _absolute_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", value) else []
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _absolute_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _absolute_strings(v)]
    return []


def scrub_paths(recipe: str) -> str:
    """The recipe YAML with every absolute path value made local (see `_local`); comments kept."""
    try:
        values = yaml.safe_load(recipe)
    except yaml.YAMLError:
        return recipe
    for path in sorted(set(_absolute_strings(values)), key=len, reverse=True):
        recipe = recipe.replace(path, _local(path))
    return recipe


def _reward_line(name: str, weight: float) -> str:
    try:
        from rusty_hf.rewards import REWARD_FACTORIES, REWARD_FUNCS

        doc = (({**REWARD_FUNCS, **REWARD_FACTORIES}.get(name).__doc__ or "").strip().splitlines() or [""])[0]
    except (ImportError, AttributeError):
        doc = ""
    return f"- `{name}` (weight {weight:g}){': ' + doc if doc else ''}"


def _training(facts, curves: str | None, recipe: str | None, base_model: str | None, run_summary: str | None = None) -> str:
    if base_model:
        start = f"Fine-tuned from [`{base_model}`](https://huggingface.co/{base_model})."
    elif facts.base:
        start = f"Fine-tuned from a local checkpoint, `{facts.base}` (not on the Hub)."
    else:
        start = "Trained from freshly initialised weights."
    parts = [start]
    if facts.data or facts.datasets:
        parts.append("Data:\n\n" + "\n".join(_data_lines(facts)))
    if facts.rewards:
        parts.append("Reward functions (summed with these weights, from `rusty_hf.rewards`):\n\n"
                     + "\n".join(_reward_line(n, w) for n, w in facts.rewards))
    if run_summary:
        parts.append(f"The RL run (`rl_training.log`): {run_summary}")
    if curves:
        parts.append(f"![Reward, KL to the reference and loss per step]({curves})")
    parts.append(f"The arguments that produced this checkpoint (TRL-parser YAML, replayable with `--config`):\n\n"
                 f"```yaml\n{recipe.strip()}\n```" if recipe else "No recipe was recorded for this checkpoint.")
    return "\n\n".join(parts)


def _evaluation(evaluations: Sequence, metrics: Mapping[str, Mapping[str, float]]) -> str:
    parts = [f"### {e.title}\n\n{e.section}" for e in evaluations]
    if metrics:
        rows = [f"| {d} | {n} | {float(v):.4f} |" for d, values in metrics.items() for n, v in values.items()]
        parts.append("### Other metrics\n\n" + "\n".join(["| evaluation set | metric | value |", "|---|---|---:|", *rows]))
    if not parts:
        return "Not evaluated yet: `python recipes/evaluate.py --model_name_or_path <this folder> --update_model_card`."
    return "\n\n".join(parts)


def body(
    title: str, load_name: str, recipe: str | None, facts, evaluations: Sequence, metrics: Mapping[str, Mapping[str, float]],
    license: str, *, curves: str | None = None, base_model: str | None = None, run_summary: str | None = None,
) -> str:
    """The card's Markdown body; ``load_name`` is what the snippet loads (a Hub id or the folder's name)."""
    return f"""
# {title}

Rusty is a tiny, blunt terminal coding assistant: a small RWKV-4 language model (`TinyRWKVForCausalLM`,
model type `tiny_rwkv`) that answers every turn with exactly one JSON action. It was built with
[rusty_hf]({SOURCE_URL}): transformers for the model, TRL trainers for SFT and
RL, rewards from sandboxed test runs and `rustc`.

## How to load

The checkpoint carries its modelling code (`auto_map`), so transformers alone loads it; the snippet
runs as written in the folder above this one (or with the Hub id in place of the folder name):

```python
from transformers import AutoModelForCausalLM, AutoTokenizer

model = AutoModelForCausalLM.from_pretrained("{load_name}", trust_remote_code=True)
tokenizer = AutoTokenizer.from_pretrained("{load_name}", trust_remote_code=True)
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

## Intended use

Research and teaching: how a very small recurrent model learns a strict action protocol and what RL
with execution rewards does to it; a local terminal agent (`rusty-terminal`) or demo Space to play with.

## Limitations

- A tiny model: it solves few coding tasks (see the evaluation), and its messages are short and often wrong.
- It writes code and commands it has never run. A host that executes CMD or EDIT must do so in a
  sandbox, on a copy of the files, as `rusty-terminal` and the Space do.
- English prompts, Python and Rust only; the training data is synthetic dialogs and small coding tasks.

## Training

{_training(facts, curves, recipe, base_model, run_summary)}

## Evaluation

{_evaluation(evaluations, metrics)}

## License

{license.upper() if license.islower() else license}. The weights and code are free software; a network
service built on them must offer its users the source (AGPL-3.0 section 13).
"""


__all__ = ["CODE_CORPUS_DATASET", "DIALOGS_DATASET", "GENERATED_DATA", "SOURCE_URL", "TASKS_DATASET", "TERMINAL_DATASET",
           "body", "scrub_paths"]
