"""Evaluate a Rusty checkpoint on the held-out tasks (pass@k and compile rate per language and difficulty,
protocol validity) or on the held-out terminal requests (``--suite terminal``).

    python recipes/evaluate.py --model_name_or_path outputs/tiny-sft --num_samples 4 --k 1 2
    python recipes/evaluate.py --model_name_or_path outputs/tiny-grpo --compare_to outputs/tiny-sft/eval_results.json
    python recipes/evaluate.py --model_name_or_path outputs/tiny-sft --update_model_card   # numbers into README.md
    python recipes/evaluate.py --config eval.yaml     # the same keys from a YAML file (TrlParser)
    python recipes/evaluate.py --suite terminal --model_name_or_path outputs/tiny-grpo --update_model_card
    python recipes/evaluate.py --suite terminal --terminal_split dev --model_name_or_path outputs/tiny-grpo
    python recipes/evaluate.py --suite terminal --terminal_split blind --model_name_or_path outputs/tiny-grpo
    python recipes/evaluate.py --suite terminal --terminal_split conversations --model_name_or_path outputs/tiny-grpo
    python recipes/evaluate.py --suite terminal --terminal_split heldout,blind,conversations --model_name_or_path outputs/tiny-grpo --update_model_card
    python recipes/evaluate.py --suite terminal --decoder plain --model_name_or_path outputs/tiny-grpo --update_model_card

``--suite terminal`` plays every held-out terminal request as rusty-terminal would (greedy, constrained,
copy bias; `rusty_hf.evaluation.terminal`), judges each action by executing it on a fresh copy of the
request's fixture, and reports first-action and episode success per part and intent, as mean ±
standard error, to ``<model>/terminal_eval.json`` (``--compare_to`` an earlier terminal report gives
the paired difference). ``--terminal_split dev`` plays the development split instead (training phrasings
on fixtures no training row uses), where decoding settings are tuned without touching the held-out one;
its report goes to ``<model>/terminal_dev_eval.json`` and never into the card. ``--terminal_split blind``
plays the blind suite (`rusty_hf.data.terminal.blind`: requests written without sight of the training
phrasings; catalogue intents, and requests outside the catalogue apart) to ``<model>/terminal_blind_eval.json``:
measured, never tuned on. ``--terminal_split conversations`` plays the conversation suite (sessions of 5-8 requests
in a row on one work dir, written blind; `rusty_hf.evaluation.conversations`) to
``<model>/terminal_conversations_eval.json``: each turn done right in a row and alone, and the replies that repeat
a phrase more than three times. With ``--update_model_card`` the blind and conversation reports join the card
beside the held-out one. ``--decoder plain`` decodes with transformers' ``generate`` alone (no rusty_hf processor:
what a user without rusty_hf gets) into ``<model>/terminal[_<split>]_plain_eval.json``; the card shows the
held-out one beside the served numbers. A comma-separated ``--terminal_split`` plays each split in turn on the model
loaded once, each into its default report; ``--compare_to`` then pairs with the split its baseline was measured on.

Samples n completions per held-out task with the chat template, runs each against the task's tests in
the sandbox (rustc for Rust; without rustc, Rust is skipped with the reason), and computes the numbers
with the `evaluate` metric modules in rusty_hf/evaluation/metrics. Writes a JSON report (settings, aggregate with
standard errors and a per-difficulty breakdown, every task and sample) and prints a table. With
``--compare_to`` (an earlier report on the same tasks, e.g. the checkpoint before RL) it also prints and
stores the paired difference of pass@k and compile rate with its standard error.
"""

from __future__ import annotations

from rusty_hf.errors import quiet_upstream_notices

quiet_upstream_notices()  # first: importing TRL/peft imports bitsandbytes, which logs one of them

import sys
from pathlib import Path

# This script shares its name with the `evaluate` library. Run as `python recipes/evaluate.py`, its
# folder is sys.path[0], where `import evaluate` (done by rusty_hf.evaluation.metrics) would find this file instead.
if sys.path and Path(sys.path[0] or ".").resolve() == Path(__file__).resolve().parent:
    sys.path.pop(0)

import json
from dataclasses import dataclass, field, replace

from trl import TrlParser

from rusty_hf.hub.checkpoints import check_model_source
from rusty_hf.evaluation.coding import (
    LANGUAGES, compare_reports, evaluate_model, format_comparison, format_table, to_inference_device,
)
from rusty_hf.inference import load_model, load_tokenizer_for
from rusty_hf.hub.publishing import push_folder, write_model_card
from rusty_hf.hub.model_card import save_report
from rusty_hf.data.terminal.blind.conversations import CONVERSATIONS_FILE
from rusty_hf.data.terminal.dev import DEV_CONVERSATIONS_FILE
from rusty_hf.evaluation.conversations import evaluate_conversations, format_conversation_table
from rusty_hf.evaluation.terminal import SPLITS
from rusty_hf.evaluation.terminal import compare_terminal, evaluate_terminal, format_terminal_comparison, format_terminal_table
from rusty_hf.errors import UserError, run_recipe

TERMINAL_SPLITS = (*SPLITS, "conversations", "conversations_dev")
CONVERSATION_FILES = {"conversations": CONVERSATIONS_FILE, "conversations_dev": DEV_CONVERSATIONS_FILE}
NO_CONVERSATION_BASELINE = ("--compare_to compares held-out, dev or blind reports; the conversation report carries its "
                            "own paired difference (in a row against alone). Fix: drop --compare_to")


@dataclass
class EvalArguments:
    """What to evaluate and how to sample."""

    model_name_or_path: str = field(default="outputs/tiny-sft", metadata={"help": "Checkpoint folder or Hub id."})
    suite: str = field(default="tasks", metadata={"help": "tasks (held-out coding tasks) or terminal (held-out terminal requests)."})
    terminal_cache_dir: str = field(
        default="outputs/terminal_fixtures", metadata={"help": "--suite terminal: where the fixture repositories are built."}
    )
    copy_bias: bool = field(default=True, metadata={"help": "--suite terminal: decode with the copy bias, as rusty-terminal does."})
    decoder: str = field(
        default="served",
        metadata={"help": "--suite terminal: served (rusty-terminal's decoder: constrained to the protocol, the copy bias, the "
                  "repeat bound) or plain (transformers' generate alone, greedy: what a user without rusty_hf gets; the "
                  "report goes to <model>/terminal[_<split>]_plain_eval.json)."},
    )
    terminal_split: str = field(
        default="heldout",
        metadata={"help": "--suite terminal: heldout (the reported split), dev (training phrasings on unused fixtures: "
                  "tune decoding there; report in <model>/terminal_dev_eval.json, never in the card) or blind (requests "
                  "written blind to the training phrasings: measure only; <model>/terminal_blind_eval.json) or conversations "
                  "(sessions of requests in a row, written blind; <model>/terminal_conversations_eval.json) or conversations_dev "
                  "(readable sessions for diagnosis, no floor; <model>/terminal_conversations_dev_eval.json); or several, "
                  "comma-separated (heldout,blind,conversations): the model is loaded once, each split into its default report."},
    )
    tokenizer_name_or_path: str | None = field(default=None, metadata={"help": "Tokenizer; default: the model's."})
    num_samples: int = field(default=4, metadata={"help": "Completions sampled per task (n of pass@k)."})
    k: list[int] = field(default_factory=lambda: [1], metadata={"help": "k values of pass@k; each <= num_samples."})
    temperature: float = field(default=0.8, metadata={"help": "Sampling temperature; 0 decodes greedily."})
    top_p: float = field(default=0.95, metadata={"help": "Nucleus sampling mass."})
    max_new_tokens: int = field(default=256, metadata={"help": "Generation length cap per completion."})
    languages: list[str] = field(default_factory=lambda: list(LANGUAGES), metadata={"help": "python and/or rust."})
    split: str = field(default="test", metadata={"help": "Task split: test (held out) or train."})
    max_tasks: int | None = field(default=None, metadata={"help": "Keep the first N tasks per language (quick runs)."})
    tasks_dir: str | None = field(default=None, metadata={"help": "Task suite folder; default: the repository's tasks/."})
    seed: int = field(default=0, metadata={"help": "Sampling seed."})
    batch_size: int = field(default=4, metadata={"help": "Prompts per generate call (x num_samples rows)."})
    timeout: float = field(default=30.0, metadata={"help": "Seconds per sandboxed test run (Rust: compile + tests)."})
    device: str = field(default="auto", metadata={"help": "Where to generate: auto (the GPU when there is one), cuda, cpu."})
    output_file: str | None = field(default=None, metadata={"help": "JSON report; default <model>/eval_results.json."})
    compare_to: str | None = field(
        default=None, metadata={"help": "An earlier report (JSON) on the same tasks: print and store the paired difference."}
    )
    update_model_card: bool = field(default=False, metadata={"help": "Write the metrics into the model folder's README.md."})
    push_to_hub: bool = field(default=False, metadata={"help": "Push the model folder (with its card) to hub_model_id."})
    hub_model_id: str | None = field(default=None, metadata={"help": "Hub repo to push to, e.g. me/rusty-tiny."})
    trust_remote_code: bool = field(
        default=False, metadata={"help": "Run the checkpoint's own modelling code (rusty_hf's classes are used otherwise)."}
    )

    def __post_init__(self) -> None:
        if self.num_samples < 1:
            raise ValueError(f"num_samples must be >= 1, got {self.num_samples}")
        if not self.k or min(self.k) < 1 or max(self.k) > self.num_samples:
            raise ValueError(f"every k must be in 1..num_samples={self.num_samples}, got k={self.k}: raise --num_samples or lower --k")
        if self.temperature == 0 and self.num_samples > 1:
            raise ValueError("temperature 0 is greedy decoding, which gives num_samples identical completions; "
                             "set --temperature > 0 or --num_samples 1")
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError(f"need temperature >= 0 and 0 < top_p <= 1, got {self.temperature}, {self.top_p}")
        unknown = sorted(set(self.languages) - set(LANGUAGES))
        if unknown:
            raise ValueError(f"unknown language(s) {unknown}; choose from {list(LANGUAGES)}")
        if self.push_to_hub and not self.hub_model_id:
            raise ValueError("--push_to_hub needs --hub_model_id <namespace/name>")
        if self.suite not in ("tasks", "terminal"):
            raise ValueError(f"suite must be 'tasks' or 'terminal', got {self.suite!r}")
        splits = self.terminal_splits
        if any(split not in TERMINAL_SPLITS for split in splits):
            raise ValueError(f"terminal_split must be one of {TERMINAL_SPLITS} (or several, comma-separated), got {self.terminal_split!r}")
        if len(set(splits)) < len(splits):
            raise ValueError(f"--terminal_split {self.terminal_split} names a split twice: name each once")
        if len(splits) > 1 and self.output_file:
            raise ValueError(f"--output_file names one report, --terminal_split {self.terminal_split} writes {len(splits)}: "
                             "drop --output_file (each split writes its default report beside the model)")
        for dev in ("dev", "conversations_dev"):
            if dev in splits and (self.update_model_card or self.push_to_hub):
                raise ValueError(f"--terminal_split {dev} is for tuning: the model card reports the held-out split only; "
                                 "drop --update_model_card / --push_to_hub")
        if self.decoder not in ("served", "plain"):
            raise ValueError(f"decoder must be 'served' or 'plain', got {self.decoder!r}")
        off_card = [split for split in splits if split != "heldout"]
        if self.decoder == "plain" and off_card and (self.update_model_card or self.push_to_hub):
            raise ValueError(f"the model card shows plain decoding on the held-out split only; --terminal_split "
                             f"{off_card[0]} --decoder plain writes its report beside the model: drop --update_model_card / --push_to_hub")
        if self.split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', got {self.split!r}")

    @property
    def terminal_splits(self) -> list[str]:
        """The names in ``terminal_split`` (comma-separated), in order."""
        return [name.strip() for name in self.terminal_split.split(",")]


def default_output_file(args: EvalArguments) -> Path:
    name = "eval_results.json"
    if args.suite == "terminal":
        name = {"dev": "terminal_dev_eval.json", "blind": "terminal_blind_eval.json",
                "conversations": "terminal_conversations_eval.json",
                "conversations_dev": "terminal_conversations_dev_eval.json"}.get(args.terminal_split, "terminal_eval.json")
        if args.decoder == "plain":
            name = name.replace("_eval.json", "_plain_eval.json")
    folder = Path(args.model_name_or_path)
    return folder / name if folder.is_dir() else Path(name)


def load(args: EvalArguments):
    """The model and tokenizer, each folder checked first and the tokenizer checked to fit the model."""
    if args.tokenizer_name_or_path:
        check_model_source(args.tokenizer_name_or_path, what="tokenizer")
    model = load_model(args.model_name_or_path, device="cpu", trust_remote_code=args.trust_remote_code)
    tokenizer = load_tokenizer_for(model, args.tokenizer_name_or_path or args.model_name_or_path, args.trust_remote_code)
    return to_inference_device(model, args.device), tokenizer


def read_baseline(path: str, suite: str = "tasks") -> dict:
    """An earlier report, checked to be one; a missing or malformed file fails before any sampling."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"--compare_to {path}: cannot read it as a report ({exc}). Fix: point it at an earlier report") from None
    key, name = ("samples", "terminal_eval.json") if suite == "terminal" else ("tasks", "eval_results.json")
    if not isinstance(report, dict) or not isinstance(report.get(key), list):
        raise UserError(f"--compare_to {path}: not a {suite} report (no '{key}' list). Fix: point it at a {name}")
    return report


def main(args: EvalArguments) -> dict:
    """The report; with several terminal splits, {split: report}, the model loaded once for all of them."""
    baseline = read_baseline(args.compare_to, args.suite) if args.compare_to else None
    folder = Path(args.model_name_or_path)
    if (args.update_model_card or args.push_to_hub) and not folder.is_dir():
        raise UserError(f"--update_model_card / --push_to_hub need a local model folder; {folder} is not one")
    model, tokenizer = load(args)
    splits = args.terminal_splits if args.suite == "terminal" else [args.terminal_split]
    measured_on = (baseline or {}).get("settings", {}).get("split")  # several splits: the baseline pairs with this one
    reports = {}
    for split in splits:
        one = replace(args, terminal_split=split)
        if args.suite != "terminal":
            report = tasks_report(one, model, tokenizer, baseline)
        else:
            report = terminal_report(one, model, tokenizer, baseline if len(splits) == 1 else None)
        if len(splits) > 1 and baseline is not None and report["settings"]["split"] == measured_on:
            if split in CONVERSATION_FILES:
                raise UserError(NO_CONVERSATION_BASELINE)
            pair_terminal(one, report, baseline)
        reports[split] = write_report(one, report)
    if len(splits) > 1 and baseline is not None and not any("comparison" in report for report in reports.values()):
        raise UserError(f"--compare_to {args.compare_to} is a report on {measured_on!r}; no "
                        f"split of --terminal_split {args.terminal_split} is. Fix: add the baseline's split, or drop --compare_to")
    if args.push_to_hub:
        commit = push_folder(folder, args.hub_model_id, commit_message="Add evaluation results")
        print(f"pushed {folder} to {commit.commit_url}")
    return reports[splits[0]] if len(splits) == 1 else reports


def write_report(args: EvalArguments, report: dict) -> dict:
    """The report to --output_file (or its default file) and, with --update_model_card, into the card."""
    folder = Path(args.model_name_or_path)
    output = Path(args.output_file) if args.output_file else default_output_file(args)
    output.parent.mkdir(parents=True, exist_ok=True)
    save_report(output, report)
    print(f"report written to {output}")
    if args.update_model_card:
        in_folder = folder / default_output_file(args).name  # the card reads its reports from the folder
        if output.resolve() != in_folder.resolve():
            save_report(in_folder, report)
        write_model_card(folder)
        print(f"metrics written to {folder / 'README.md'}")
    return report


def terminal_report(args: EvalArguments, model, tokenizer, baseline: dict | None) -> dict:
    if args.terminal_split in CONVERSATION_FILES:
        if baseline is not None:
            raise UserError(NO_CONVERSATION_BASELINE)
        report = evaluate_conversations(model, tokenizer, args.terminal_cache_dir, batch_size=args.batch_size * 4,
                                        copy=args.copy_bias, constrained=args.decoder == "served",
                                        path=CONVERSATION_FILES[args.terminal_split])
        report["settings"] |= {"model": args.model_name_or_path}
        print(format_conversation_table(report))
        return report
    report = evaluate_terminal(model, tokenizer, args.terminal_cache_dir, seed=args.seed, copy=args.copy_bias,
                               batch_size=args.batch_size * 4, split=args.terminal_split,
                               constrained=args.decoder == "served")  # fmt: skip
    report["settings"] |= {"model": args.model_name_or_path}
    print(format_terminal_table(report))
    if baseline is not None:
        pair_terminal(args, report, baseline)
    return report


def pair_terminal(args: EvalArguments, report: dict, baseline: dict) -> None:
    """The paired difference from the baseline into ``report["comparison"]``, printed."""
    try:
        report["comparison"] = {"baseline": args.compare_to, **compare_terminal(baseline, report)}
    except ValueError as exc:
        raise UserError(f"--compare_to {args.compare_to}: {exc}. Fix: compare reports of the same suite version and seed") from None
    print(f"compared with {args.compare_to} (paired over requests):")
    print(format_terminal_comparison({k: v for k, v in report["comparison"].items() if k != "baseline"}))


def tasks_report(args: EvalArguments, model, tokenizer, baseline: dict | None) -> dict:
    report = evaluate_model(
        model, tokenizer, languages=args.languages, split=args.split, num_samples=args.num_samples, k=args.k,
        temperature=args.temperature, top_p=args.top_p, max_new_tokens=args.max_new_tokens, batch_size=args.batch_size,
        seed=args.seed, max_tasks=args.max_tasks, timeout=args.timeout, tasks_root=args.tasks_dir,
    )
    report["settings"] |= {"model": args.model_name_or_path, "tokenizer": args.tokenizer_name_or_path or args.model_name_or_path}
    if baseline is not None:
        report["comparison"] = {"baseline": args.compare_to, "baseline_model": baseline.get("settings", {}).get("model"),
                                **compare_reports(baseline, report)}
    print(format_table(report))
    if baseline is not None:
        print(f"compared with {args.compare_to} (paired over tasks):")
        print(format_comparison({k: v for k, v in report["comparison"].items() if k in LANGUAGES}))
    return report


if __name__ == "__main__":
    sys.exit(run_recipe("evaluate.py", TrlParser((EvalArguments,)), main))
