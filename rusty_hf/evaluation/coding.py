"""Evaluate a Rusty checkpoint on the held-out coding tasks: pass@k per language and difficulty, compile rate,
protocol validity.

For every held-out task (``rusty_hf.data.tasks.load_tasks(split="test")``) the model samples n
completions of the task's chat prompt; each is scored by running the task's tests through the
sandboxed rewards (Python: ``run_python_tests``; Rust: ``compile_rust`` with the tests), and the
numbers are computed by the `evaluate` metric modules shipped in ``rusty_hf/evaluation/metrics`` (pass@k with
the unbiased estimator, protocol validity with ``parse_action``). A sample is correct when every
test passes; it compiles when Python parses it or rustc builds it. Each language's numbers come with their
standard errors over tasks and are broken down by the tasks' difficulty (1-5); `compare_reports` gives the
paired difference of two reports on the same tasks (e.g. before and after RL) with its standard error.

Usage (``recipes/evaluate.py`` wraps this with argument parsing and the model card update)::

    from rusty_hf.evaluation import evaluate_model, format_table
    report = evaluate_model(model, tokenizer, num_samples=4, k=[1, 2], languages=["python", "rust"])
    print(format_table(report))          # report is a JSON-ready dict: settings, aggregate, tasks
    print(format_comparison(compare_reports(report_before_rl, report)))
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, set_seed

from rusty_hf.data.tasks import load_tasks
from rusty_hf.inference.loading import resolve_device
from rusty_hf.evaluation.metrics import load_metric
from rusty_hf.evaluation.stats import mean_and_stderr
from rusty_hf.protocol import ProtocolError, parse_action
from rusty_hf.rewards.python_exec.execution import default_workers, parse_untrusted, run_python_tests
from rusty_hf.rewards.extract import extract_code
from rusty_hf.sandbox import require_isolation
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT, generation_eos_ids

logger = logging.getLogger(__name__)
LANGUAGES = ("python", "rust")


@dataclass
class SampleScore:
    """One completion, scored: the share of tests passed, whether all passed, whether it compiles, and why not."""

    fraction: float
    passed: bool
    status: str  # ok | no_code | syntax_error | error (ours) | the run's status (timeout, crash, compile_error, ...)
    compiled: bool = False  # Python: the code parses; Rust: rustc builds it on its own (before the tests)


def to_inference_device(model: PreTrainedModel, device: str = "auto") -> PreTrainedModel:
    """``model`` in eval mode on ``device``: ``auto`` is the GPU when there is one (generation there is
    what makes the r2 pipeline's evaluations fit their minutes), else the CPU (`resolve_device`)."""
    return model.to(resolve_device(None if device == "auto" else device)).eval()


def generate_samples(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    prompts: Sequence[list[dict]],
    *,
    num_samples: int,
    temperature: float,
    top_p: float = 1.0,
    max_new_tokens: int = 256,
    batch_size: int = 4,
) -> list[list[str]]:
    """Sample ``num_samples`` completions of each chat prompt; return them per prompt, decoded and stripped.

    Prompts are left-padded in batches of ``batch_size`` (TinyRWKV keeps pads out of its state);
    ``temperature`` 0 decodes greedily.
    """
    tokenizer.padding_side = "left"  # generation appends on the right
    eos = generation_eos_ids(tokenizer)
    sampling = {"do_sample": True, "temperature": temperature, "top_p": top_p} if temperature > 0 else {"do_sample": False}
    completions: list[list[str]] = []
    for start in range(0, len(prompts), batch_size):
        texts = [tokenizer.apply_chat_template(p, add_generation_prompt=True, tokenize=False) for p in prompts[start : start + batch_size]]
        inputs = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
        with torch.no_grad():
            out = model.generate(
                **inputs, max_new_tokens=max_new_tokens, num_return_sequences=num_samples,
                eos_token_id=eos, pad_token_id=tokenizer.pad_token_id, **sampling,
            )
        texts = tokenizer.batch_decode(out[:, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
        texts = [t.strip() for t in texts]  # the byte-level BPE decodes a leading prefix space
        completions += [texts[i : i + num_samples] for i in range(0, len(texts), num_samples)]  # prompt-major rows
    return completions


def _score_python(code: str, tests: str, timeout: float) -> SampleScore:
    if parse_untrusted(code) is None:  # parsing never runs it; prose that fell through extraction costs no sandbox run
        return SampleScore(0.0, False, "syntax_error")
    outcome = run_python_tests(code, tests, timeout=timeout)
    return SampleScore(outcome.fraction, outcome.status == "ok" and outcome.passed == outcome.total, outcome.status, True)


def _score_rust(code: str, tests: str, timeout: float, reference: str | None) -> SampleScore:
    from rusty_hf.rewards.rust.compiler import compile_rust

    # lints don't decide pass/fail; the tests expect what they record for the reference solution
    result = compile_rust(code, tests=tests, reference=reference, clippy=False, timeout=timeout)
    passed = result.status == "ok" and result.tests_total > 0 and result.tests_passed == result.tests_total
    return SampleScore(result.test_fraction if result.tests_compiled else 0.0, passed, result.status, result.success)


def rust_unavailable_reason() -> str | None:
    """Why Rust samples cannot be scored here (no Rust reward module, no rustc), or None when they can."""
    try:
        from rusty_hf.rewards.rust.toolchain import RustToolchainError, find_toolchain
    except ImportError as exc:
        return f"the Rust reward (rusty_hf.rewards.rust.compiler) is not available: {exc}"
    try:
        find_toolchain()
    except RustToolchainError as exc:
        return str(exc)
    return None


def score_samples(
    completions: Sequence[Sequence[str]],
    tests: Sequence[str],
    language: str,
    *,
    timeout: float = 30.0,
    max_workers: int | None = None,
    references: Sequence[str] | None = None,
) -> list[list[SampleScore]]:
    """Score each task's completions against its tests in the sandbox (identical programs run once).

    ``references`` (each task's reference solution, the ``solution`` column) is required for Rust:
    a Rust test passes when it records what it records for the reference. A sample whose scoring
    fails inside rusty_hf (not in the model's code) gets status ``error`` and a logged warning
    instead of ending the evaluation.
    """
    if language == "rust" and (references is None or len(references) != len(tests)):
        raise ValueError("Rust samples need references=: each task's reference solution (the `solution` column)")
    reference_of = dict(zip(tests, references or []))
    scorer: Callable[[str, str, float], SampleScore] = {
        "python": _score_python,
        "rust": lambda code, t, seconds: _score_rust(code, t, seconds, reference_of[t]),
    }[language]

    def safe_score(job: tuple[str, str]) -> SampleScore:
        try:
            return scorer(job[0], job[1], timeout)
        except Exception as exc:  # noqa: BLE001 - one broken sample must not end the run
            logger.warning("evaluation: a %s sample could not be scored: %s: %s", language, type(exc).__name__, exc)
            return SampleScore(0.0, False, "error")

    codes = [[extract_code(text, language) for text in task] for task in completions]
    jobs = list(dict.fromkeys((c, t) for task, t in zip(codes, tests) for c in task if c and c.strip()))
    workers = max(1, min(max_workers or default_workers(), len(jobs) or 1))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"eval-{language}") as pool:
        results = dict(zip(jobs, pool.map(safe_score, jobs)))
    no_code = SampleScore(0.0, False, "no_code")
    return [[results[(c, t)] if c and c.strip() else no_code for c in task] for task, t in zip(codes, tests)]


def _protocol_label(text: str) -> str:
    try:
        return parse_action(text).action
    except ProtocolError as exc:
        return f"error:{exc.kind}"


def _summary(tasks: list[dict], metric_names: list[str]) -> dict:
    """Means over tasks of each per-task number, with standard errors under ``stderr``."""
    summary: dict = {"num_tasks": len(tasks), "num_samples": sum(t["num_samples"] for t in tasks), "stderr": {}}
    for name in metric_names:
        summary[name], summary["stderr"][name] = mean_and_stderr([t[name] for t in tasks])
    return summary


def _language_report(rows, completions, scores, k: list[int], pass_at_k) -> tuple[dict, list[dict]]:
    passes = [[float(s.passed) for s in task] for task in scores]
    metric = pass_at_k.compute(predictions=passes, k=k, per_task=True)
    tasks = []
    for i, row in enumerate(rows):
        tasks.append({
            "name": row["name"], "language": row["language"], "difficulty": row["difficulty"],
            "num_samples": len(scores[i]), "num_correct": int(sum(passes[i])),
            **{name: values[i] for name, values in metric["per_task"].items()},
            "compile_rate": sum(s.compiled for s in scores[i]) / len(scores[i]),
            "mean_test_fraction": sum(s.fraction for s in scores[i]) / len(scores[i]),
            "samples": [{"completion": c, **asdict(s), "protocol": _protocol_label(c)} for c, s in zip(completions[i], scores[i])],
        })
    names = [*metric["per_task"], "compile_rate", "mean_test_fraction"]
    aggregate = _summary(tasks, names)  # pass@k: the metric's per-task estimates, averaged as the metric does
    difficulties = sorted({t["difficulty"] for t in tasks})
    aggregate["by_difficulty"] = {str(d): _summary([t for t in tasks if t["difficulty"] == d], names) for d in difficulties}
    return aggregate, tasks


def evaluate_model(
    model: PreTrainedModel,
    tokenizer: PreTrainedTokenizerBase,
    *,
    languages: Sequence[str] = LANGUAGES,
    split: str = "test",
    num_samples: int = 4,
    k: Sequence[int] = (1,),
    temperature: float = 0.8,
    top_p: float = 0.95,
    max_new_tokens: int = 256,
    batch_size: int = 4,
    seed: int = 0,
    max_tasks: int | None = None,
    timeout: float = 30.0,
    tasks_root: str | Path | None = None,
) -> dict:
    """Generate, score and aggregate; return the report (``settings``, ``aggregate``, ``tasks``, ``skipped``).

    ``max_tasks`` keeps the first tasks of each language (quick runs). A language that cannot be
    scored here (no rustc) is listed under ``skipped`` with the reason instead of failing the run.
    """
    settings = {"languages": list(languages), "split": split, "num_samples": num_samples, "k": list(k),
                "temperature": temperature, "top_p": top_p, "max_new_tokens": max_new_tokens, "batch_size": batch_size,
                "seed": seed, "max_tasks": max_tasks}
    unknown = sorted(set(languages) - set(LANGUAGES))
    if unknown:
        raise ValueError(f"unknown language(s) {unknown}; choose from {list(LANGUAGES)}")
    require_isolation()  # the samples run in the sandbox: without bubblewrap, one line naming the fix, before generating
    # In memory: no Arrow cache files under ~/.cache, so parallel evaluations never contend for locks.
    pass_at_k = load_metric("pass_at_k", keep_in_memory=True)
    validity = load_metric("protocol_validity", keep_in_memory=True)
    report: dict = {"settings": settings, "aggregate": {}, "tasks": [], "skipped": {}}
    model.eval()
    for language in languages:
        reason = rust_unavailable_reason() if language == "rust" else None
        if reason:
            report["skipped"][language] = reason
            print(f"skipping Rust evaluation: {reason}")
            continue
        # The Rusty persona, as in the SFT data and the RL prompts: the model is scored as it was trained.
        rows = load_tasks(tasks_root, language=language, split=split, system_prompt=RUSTY_SYSTEM_PROMPT)
        rows = rows.select(range(min(max_tasks, len(rows)))) if max_tasks is not None else rows
        if len(rows) == 0:
            report["skipped"][language] = f"no {language} tasks in split {split!r}"
            continue
        set_seed(seed)  # each language's samples do not depend on which languages ran before
        completions = generate_samples(model, tokenizer, list(rows["prompt"]), num_samples=num_samples, temperature=temperature,
                                       top_p=top_p, max_new_tokens=max_new_tokens, batch_size=batch_size)
        scores = score_samples(completions, list(rows["tests"]), language, timeout=timeout, references=list(rows["solution"]))
        report["aggregate"][language], tasks = _language_report(rows, completions, scores, list(k), pass_at_k)
        report["tasks"] += tasks
    every_completion = [s["completion"] for task in report["tasks"] for s in task["samples"]]
    if every_completion:
        report["aggregate"]["protocol"] = validity.compute(predictions=every_completion)
    return report


def _headline(values: dict) -> dict[str, float]:
    return {n: v for n, v in values.items() if n.startswith("pass@") or n == "compile_rate"}


def _cell(row: dict, name: str) -> str:
    return f"{row[name]:.3f} ± {row['stderr'][name]:.3f}"


def format_table(report: dict) -> str:
    """A plain-text table of the aggregate numbers (mean ± standard error over tasks): one row per language,
    one per language and difficulty, then protocol validity."""
    ks = [f"pass@{x}" for x in report["settings"]["k"]]
    header = ["language", "difficulty", "tasks", "samples", *ks, "compile rate", "mean test fraction"]
    lines = [" | ".join(header), " | ".join("---" for _ in header)]
    for language in LANGUAGES:
        row = report["aggregate"].get(language)
        if row:
            for difficulty, values in [("all", row), *row["by_difficulty"].items()]:
                cells = [_cell(values, name) for name in (*ks, "compile_rate", "mean_test_fraction")]
                lines.append(" | ".join([language, difficulty, str(values["num_tasks"]), str(values["num_samples"]), *cells]))
        elif language in report["skipped"]:
            lines.append(f"{language} | skipped: {report['skipped'][language]}")
    protocol = report["aggregate"].get("protocol")
    if protocol:
        lines.append(f"protocol validity: {protocol['protocol_validity']:.3f} of {protocol['num_completions']} completions "
                     f"(actions {protocol['actions']}, errors {protocol['errors']})")
    return "\n".join(lines)


def compare_reports(before: dict, after: dict) -> dict:
    """The paired difference after - before of two reports, per language, over the tasks both scored.

    For pass@k and compile rate: ``{"before", "after", "delta", "stderr", "z"}`` where ``stderr`` is the
    standard error of the per-task differences (paired: the task-to-task spread cancels), ``z`` =
    delta / stderr. Raises ValueError when the reports share no task.
    """
    comparison: dict = {}
    for language in LANGUAGES:
        old = {t["name"]: t for t in before["tasks"] if t["language"] == language}
        new = {t["name"]: t for t in after["tasks"] if t["language"] == language}
        names = sorted(old.keys() & new.keys())
        if not names:
            continue
        metrics = [n for n in _headline(new[names[0]]) if n in old[names[0]]]
        comparison[language] = {"num_tasks": len(names)}
        for name in metrics:
            delta, stderr = mean_and_stderr([new[t][name] - old[t][name] for t in names])
            comparison[language][name] = {
                "before": sum(old[t][name] for t in names) / len(names),
                "after": sum(new[t][name] for t in names) / len(names),
                "delta": delta, "stderr": stderr, "z": delta / stderr if stderr > 0 else 0.0,
            }
    if not comparison:
        raise ValueError("the two reports share no task: evaluate both checkpoints on the same split and languages")
    return comparison


def format_comparison(comparison: dict) -> str:
    """One line per language and metric: before -> after, the paired delta ± its standard error."""
    lines = []
    for language, values in comparison.items():
        for name, v in values.items():
            if isinstance(v, dict):
                lines.append(f"{language} {name}: {v['before']:.3f} -> {v['after']:.3f}, delta {v['delta']:+.3f} ± "
                             f"{v['stderr']:.3f} ({v['z']:+.1f} SE, {values['num_tasks']} tasks)")
    return "\n".join(lines)


__all__ = [
    "LANGUAGES", "SampleScore", "compare_reports", "evaluate_model", "format_comparison", "format_table",
    "generate_samples", "rust_unavailable_reason", "score_samples", "to_inference_device",
]
