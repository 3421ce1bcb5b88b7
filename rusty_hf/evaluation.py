"""Evaluate a Rusty checkpoint on the held-out coding tasks: pass@k per language and protocol validity.

For every held-out task (``rusty_hf.data.tasks.load_tasks(split="test")``) the model samples n
completions of the task's chat prompt; each is scored by running the task's tests through the
sandboxed rewards (Python: ``run_python_tests``; Rust: ``compile_rust`` with the tests), and the
numbers are computed by the `evaluate` metric modules shipped in ``rusty_hf/metrics`` (pass@k with
the unbiased estimator, protocol validity with ``parse_action``). A sample is correct when every
test passes.

Usage (``recipes/evaluate.py`` wraps this with argument parsing and the model card update)::

    from rusty_hf.evaluation import evaluate_model, format_table
    report = evaluate_model(model, tokenizer, num_samples=4, k=[1, 2], languages=["python", "rust"])
    print(format_table(report))          # report is a JSON-ready dict: settings, aggregate, tasks
"""

from __future__ import annotations

import ast
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from transformers import PreTrainedModel, PreTrainedTokenizerBase, set_seed

from rusty_hf.data.tasks import load_tasks
from rusty_hf.metrics import load_metric
from rusty_hf.protocol import ProtocolError, parse_action
from rusty_hf.rewards.execution import default_workers, run_python_tests
from rusty_hf.rewards.extract import extract_code
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT, generation_eos_ids

logger = logging.getLogger(__name__)
LANGUAGES = ("python", "rust")


@dataclass
class SampleScore:
    """One completion, scored: the share of tests passed, whether all passed, and why not."""

    fraction: float
    passed: bool
    status: str  # ok | no_code | syntax_error | error (ours) | the run's status (timeout, crash, compile_error, ...)


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
    try:  # parsing never executes the code; prose that fell through extraction costs no sandbox run
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return SampleScore(0.0, False, "syntax_error")
    outcome = run_python_tests(code, tests, timeout=timeout)
    return SampleScore(outcome.fraction, outcome.status == "ok" and outcome.passed == outcome.total, outcome.status)


def _score_rust(code: str, tests: str, timeout: float) -> SampleScore:
    from rusty_hf.rewards.rust_compile import compile_rust

    result = compile_rust(code, tests=tests, clippy=False, timeout=timeout)  # lints don't decide pass/fail
    passed = result.status == "ok" and result.tests_total > 0 and result.tests_passed == result.tests_total
    return SampleScore(result.test_fraction if result.tests_compiled else 0.0, passed, result.status)


def rust_unavailable_reason() -> str | None:
    """Why Rust samples cannot be scored here (no Rust reward module, no rustc), or None when they can."""
    try:
        from rusty_hf.rewards.rust_toolchain import RustToolchainError, find_toolchain
    except ImportError as exc:
        return f"the Rust reward (rusty_hf.rewards.rust_compile) is not available: {exc}"
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
) -> list[list[SampleScore]]:
    """Score each task's completions against its tests in the sandbox (identical programs run once).

    A sample whose scoring fails inside rusty_hf (not in the model's code) gets status ``error`` and
    a logged warning instead of ending the evaluation.
    """
    scorer: Callable[[str, str, float], SampleScore] = {"python": _score_python, "rust": _score_rust}[language]

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


def _language_report(rows, completions, scores, k: list[int], pass_at_k) -> tuple[dict, list[dict]]:
    per_sample_fractions = [[s.fraction for s in task] for task in scores]
    passes = [[float(s.passed) for s in task] for task in scores]
    metric = pass_at_k.compute(predictions=passes, k=k, per_task=True)
    tasks = []
    for i, row in enumerate(rows):
        tasks.append({
            "name": row["name"], "language": row["language"], "difficulty": row["difficulty"],
            "num_samples": len(scores[i]), "num_correct": int(sum(passes[i])),
            **{name: values[i] for name, values in metric["per_task"].items()},
            "mean_test_fraction": sum(per_sample_fractions[i]) / len(per_sample_fractions[i]),
            "samples": [{"completion": c, **asdict(s), "protocol": _protocol_label(c)} for c, s in zip(completions[i], scores[i])],
        })
    aggregate = {name: value for name, value in metric.items() if name != "per_task"}
    aggregate |= {
        "mean_test_fraction": sum(t["mean_test_fraction"] for t in tasks) / len(tasks),
        "num_tasks": len(tasks), "num_samples": sum(t["num_samples"] for t in tasks),
    }
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
        scores = score_samples(completions, list(rows["tests"]), language, timeout=timeout)
        report["aggregate"][language], tasks = _language_report(rows, completions, scores, list(k), pass_at_k)
        report["tasks"] += tasks
    every_completion = [s["completion"] for task in report["tasks"] for s in task["samples"]]
    if every_completion:
        report["aggregate"]["protocol"] = validity.compute(predictions=every_completion)
    return report


def card_metrics(report: dict) -> dict[str, dict[str, float]]:
    """The headline numbers of a report, shaped for ``rusty_hf.publishing.write_model_card(metrics=...)``."""
    metrics = {}
    for language in LANGUAGES:
        values = report["aggregate"].get(language)
        if values:
            metrics[f"{language} held-out tasks"] = {n: v for n, v in values.items() if n.startswith("pass@")}
    if "protocol" in report["aggregate"]:
        metrics["held-out task completions"] = {"protocol_validity": report["aggregate"]["protocol"]["protocol_validity"]}
    return metrics


def format_table(report: dict) -> str:
    """A plain-text table of the aggregate numbers (one row per language, then protocol validity)."""
    ks = [f"pass@{x}" for x in report["settings"]["k"]]
    header = ["language", "tasks", "samples", *ks, "mean test fraction"]
    lines = [" | ".join(header), " | ".join("---" for _ in header)]
    for language in LANGUAGES:
        row = report["aggregate"].get(language)
        if row:
            values = [f"{row[name]:.3f}" for name in ks] + [f"{row['mean_test_fraction']:.3f}"]
            lines.append(" | ".join([language, str(row["num_tasks"]), str(row["num_samples"]), *values]))
        elif language in report["skipped"]:
            lines.append(f"{language} | skipped: {report['skipped'][language]}")
    protocol = report["aggregate"].get("protocol")
    if protocol:
        lines.append(f"protocol validity: {protocol['protocol_validity']:.3f} of {protocol['num_completions']} completions "
                     f"(actions {protocol['actions']}, errors {protocol['errors']})")
    return "\n".join(lines)


__all__ = ["SampleScore", "card_metrics", "evaluate_model", "format_table", "generate_samples", "score_samples"]
