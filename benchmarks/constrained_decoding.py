"""Benchmark: constrained decoding with `ProtocolLogitsProcessor` -- validity rate and speed cost.

Generates ``--samples`` replies to synthetic protocol requests, each twice -- with and without the
processor, the two interleaved so that load from other jobs hits both alike -- with sampling
(``do_sample=True``, the same seed for both), batch 1, ``max_new_tokens`` 96, ``use_cache=True``, and reports:

  * validity: the share of replies `parse_action` accepts;
  * tokens/s: generated tokens / wall time of ``generate`` (prefill included), and the ratio;
  * the processor's own time per step, and its cold start, paid once per tokenizer before timing starts
    and reported separately: the tokens' bytes, and every token stepped from every automaton state.

Floors (the issue): validity 100% with the processor; speed cost (tokens/s without / with) <= 1.5.

The model: ``--model FOLDER`` (default ``outputs/tiny-sft`` when it exists: the fine-tuned tiny Rusty with
the 24K tokenizer); without it, a random TinyRWKV with a tokenizer trained here on dialogs and tasks.

    python3 benchmarks/constrained_decoding.py [--model outputs/tiny-sft | --random-model] [--samples 24]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, LogitsProcessorList

from rusty_hf import TinyRWKVConfig, TinyRWKVForCausalLM
from rusty_hf.data.corpus import dialog_texts, task_texts
from rusty_hf.data.dialogs import synthetic_dialogs
from rusty_hf.protocol import ProtocolError, ProtocolLogitsProcessor, parse_action
from rusty_hf.protocol.vocabulary import token_table
from rusty_hf.tokenizer import generation_eos_ids, load_tokenizer, train_tokenizer

RESULTS = Path(__file__).resolve().parent / "results" / "constrained_decoding.json"
DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "outputs" / "tiny-sft"
MAX_COST = 1.5


class TimedProcessor(ProtocolLogitsProcessor):
    """Adds up the wall time spent inside the processor (the one method `generate` calls)."""

    seconds = 0.0
    calls = 0

    def __call__(self, input_ids, scores):
        start = time.perf_counter()
        out = super().__call__(input_ids, scores)
        TimedProcessor.seconds += time.perf_counter() - start
        TimedProcessor.calls += 1
        return out


def load(model_dir: Path | None):
    if model_dir is not None:
        return AutoModelForCausalLM.from_pretrained(model_dir).eval(), load_tokenizer(model_dir), str(model_dir)
    texts = [*dialog_texts(2000, seed=1), *task_texts()]
    tokenizer = train_tokenizer(texts, vocab_size=2000, show_progress=False)
    torch.manual_seed(0)
    config = TinyRWKVConfig(vocab_size=len(tokenizer), d_embed=64, d_hidden=128, n_layers=2)
    return TinyRWKVForCausalLM(config).eval(), tokenizer, "random TinyRWKV (d_hidden 128, 2 layers), local tokenizer"


def generate(model, tokenizer, prompt, seed: int, constrained: bool, max_new_tokens: int) -> tuple[str, int, float]:
    inputs = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
    processors = LogitsProcessorList([TimedProcessor(tokenizer, max_new_tokens=max_new_tokens)] if constrained else [])
    torch.manual_seed(seed)
    start = time.perf_counter()
    out = model.generate(
        **inputs, max_new_tokens=max_new_tokens, do_sample=True, logits_processor=processors, use_cache=True,
        eos_token_id=generation_eos_ids(tokenizer), pad_token_id=tokenizer.pad_token_id,
    )
    seconds = time.perf_counter() - start
    new = out[0, inputs["input_ids"].shape[1] :]
    return tokenizer.decode(new, skip_special_tokens=True), len(new), seconds


def is_valid(text: str) -> bool:
    try:
        parse_action(text)
    except ProtocolError:
        return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL if DEFAULT_MODEL.is_dir() else None)
    parser.add_argument("--random-model", action="store_true", help="a random TinyRWKV even if --model exists")
    parser.add_argument("--samples", type=int, default=24)
    parser.add_argument("--max-new-tokens", type=int, default=96)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.model is not None and not args.model.is_dir() and not args.random_model:
        parser.error(f"--model {args.model} is not a folder; train one with recipes/sft.py, or leave --model out")
    load_at_start = os.getloadavg()[0]
    model, tokenizer, model_name = load(None if args.random_model else args.model)

    start = time.perf_counter()
    table = token_table(tokenizer)
    table_seconds = time.perf_counter() - start
    start = time.perf_counter()
    table.step_state(table.automaton.start)  # steps every token from every state, once per tokenizer
    states_seconds = time.perf_counter() - start
    prompts = [
        tokenizer.apply_chat_template(dialog[:2], add_generation_prompt=True, tokenize=False)
        for dialog in synthetic_dialogs(args.samples + 1, seed=123)
    ]
    start = time.perf_counter()
    for constrained in (False, True):  # warm-up: first-call costs and the states a reply usually visits
        generate(model, tokenizer, prompts[-1], 10_000, constrained, args.max_new_tokens)
    warmup_seconds = time.perf_counter() - start
    TimedProcessor.seconds, TimedProcessor.calls = 0.0, 0

    stats = {mode: {"valid": 0, "tokens": 0, "seconds": 0.0} for mode in ("unconstrained", "constrained")}
    for i, prompt in enumerate(prompts[:-1]):
        for mode in ("unconstrained", "constrained") if i % 2 == 0 else ("constrained", "unconstrained"):
            text, tokens, seconds = generate(model, tokenizer, prompt, i, mode == "constrained", args.max_new_tokens)
            stats[mode]["valid"] += is_valid(text)
            stats[mode]["tokens"] += tokens
            stats[mode]["seconds"] += seconds
    for mode in stats.values():
        mode["validity"] = mode["valid"] / args.samples
        mode["tokens_per_s"] = mode["tokens"] / mode["seconds"]
    cost = stats["unconstrained"]["tokens_per_s"] / stats["constrained"]["tokens_per_s"]
    step_ms = 1000 * TimedProcessor.seconds / max(TimedProcessor.calls, 1)
    passed = stats["constrained"]["validity"] == 1.0 and cost <= MAX_COST

    print(f"model: {model_name}; vocab {len(tokenizer)}; {args.samples} samples; load average {load_at_start:.1f}")
    print(f"{'mode':<15}{'validity':>10}{'tokens':>8}{'tokens/s':>10}")
    for name, mode in stats.items():
        print(f"{name:<15}{mode['validity']:>10.1%}{mode['tokens']:>8}{mode['tokens_per_s']:>10.1f}")
    print(f"speed cost (tokens/s without / with): {cost:.2f}x (floor <= {MAX_COST}x)")
    print(f"processor: {step_ms:.2f} ms/step warm; once per tokenizer: token bytes {table_seconds:.2f} s, "
          f"all (state, token) steps {states_seconds:.2f} s")
    print("PASS" if passed else "FAIL")

    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "model": model_name, "vocab_size": len(tokenizer), "samples": args.samples,
        "max_new_tokens": args.max_new_tokens, "results": stats, "speed_cost": cost,
        "processor_ms_per_step": step_ms, "token_table_seconds": table_seconds, "state_steps_seconds": states_seconds,
        "warmup_seconds": warmup_seconds,
        "floors": {"constrained_validity": 1.0, "max_speed_cost": MAX_COST}, "passed": passed,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "threads": torch.get_num_threads(),
                    "load_average_at_start": load_at_start},
    }
    args.out.write_text(json.dumps(record, indent=2) + "\n")
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
