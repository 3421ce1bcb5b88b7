"""Speed, memory and exactness benchmark: TinyRWKV against transformers' RWKV and GPT-2.

One run measures everything against baselines built in that same run (same depth, width and
vocab, random init, nothing from the Hub), prints tables with the issue's floors and writes
JSON to benchmarks/results/. Each (measurement, model) pair runs in its own subprocess, so the
peak memory reported (the kernel's RSS high-water mark, VmHWM) belongs to that model alone.

    python3 benchmarks/model_speed.py                        # full run, ~5-10 min on 2 cores
    python3 benchmarks/model_speed.py --quick                # smoke run: fewer repeats, short generations
    python3 benchmarks/model_speed.py --models hf_rwkv gpt2  # baselines only

Exit status 1 when a floor fails or a measurement errors, so CI can use it as a gate.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # runs from a checkout without installing rusty_hf

import torch  # noqa: E402
import transformers  # noqa: E402
from transformers.generation.streamers import BaseStreamer  # noqa: E402

VOCAB, WIDTH, LAYERS = 24000, 512, 4
MODELS = ("ours", "hf_rwkv", "gpt2")
MARK = "@@RESULT "  # tags the worker's JSON line, so library chatter on stdout can't be mistaken for it
Result = dict[str, Any]


def proc_field(path: str, key: str) -> str:
    """Value of the first `key: value` line of a /proc file ("" when absent)."""
    for line in Path(path).read_text().splitlines():
        if line.split(":", 1)[0].strip() == key:
            return line.split(":", 1)[1].strip()
    return ""


def fast_bf16_flags() -> list[str]:
    return sorted({"amx_bf16", "avx512_bf16"} & set(proc_field("/proc/cpuinfo", "flags").split()))


def default_cpu_dtype() -> torch.dtype:
    """The project's default CPU training precision: bf16 only where the CPU runs it fast."""
    try:
        from rusty_hf.precision import default_cpu_dtype as project_default
    except ImportError:  # the same rule: without AMX / AVX512-BF16, bf16 matmuls crawl (~0.5 GFLOP/s here)
        return torch.bfloat16 if fast_bf16_flags() else torch.float32
    return project_default()


def machine() -> Result:
    return {"cpu": proc_field("/proc/cpuinfo", "model name") or platform.processor(),
            "cores": len(os.sched_getaffinity(0)), "torch": torch.__version__,
            "transformers": transformers.__version__, "python": platform.python_version(),
            "fast_bf16_flags": fast_bf16_flags(), "default_cpu_dtype": str(default_cpu_dtype()).split(".")[-1],
            "loadavg_1min_at_start": os.getloadavg()[0], "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


def peak_rss_mib() -> float:
    """This process's RSS high-water mark; unlike tracemalloc it sees torch's native allocations."""
    return int(proc_field("/proc/self/status", "VmHWM").split()[0]) / 1024


def build_model(name: str) -> torch.nn.Module:
    torch.manual_seed(0)
    if name == "ours":
        from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM
        return TinyRWKVForCausalLM(TinyRWKVConfig(vocab_size=VOCAB, d_hidden=WIDTH, n_layers=LAYERS))
    if name == "hf_rwkv":
        return transformers.RwkvForCausalLM(transformers.RwkvConfig(
            vocab_size=VOCAB, hidden_size=WIDTH, num_hidden_layers=LAYERS, attention_hidden_size=WIDTH,
            intermediate_size=4 * WIDTH, context_length=2048, bos_token_id=0, eos_token_id=0))
    if name == "gpt2":
        return transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=VOCAB, n_embd=WIDTH, n_layer=LAYERS, n_head=8, n_positions=2048,
            bos_token_id=0, eos_token_id=0))
    raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")


def random_ids(batch: int, length: int, seed: int = 1) -> torch.Tensor:
    # from 1 up: 0 is the eos that the generation runs must not stop on
    return torch.randint(1, VOCAB, (batch, length), generator=torch.Generator().manual_seed(seed))


def timed(fn: Callable[[], object]) -> Callable[[], float]:
    """`fn` as a measurement: its wall time in seconds."""

    def run() -> float:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start

    return run


def interleaved_medians(runs: dict[str, Callable[[], float]], warmup: int, repeats: int) -> dict[str, float]:
    """Median of each run's measurements, `repeats` of each with the runs alternating (A B, B A, ...)
    so that a drift of the machine's speed moves the runs of a ratio alike. Each run is first called
    `warmup` times unmeasured (first calls allocate AdamW state and warm the allocator and caches)."""
    for run in runs.values():
        for _ in range(warmup):
            run()
    values: dict[str, list[float]] = {name: [] for name in runs}
    order = list(runs)
    for i in range(repeats):
        for name in order if i % 2 == 0 else order[::-1]:
            values[name].append(runs[name]())
    return {name: statistics.median(v) for name, v in values.items()}


def train_step(model: torch.nn.Module, opt: torch.optim.Optimizer, batch: int, seqlen: int, bf16: bool) -> Callable[[], None]:
    """One forward + backward + AdamW step (+ zero_grad) on a fixed random batch."""
    model.train()
    ids = random_ids(batch, seqlen)

    def step() -> None:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def adamw(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)  # transformers.Trainer's default optimizer


class TokenClock(BaseStreamer):
    """Timestamps every streamer call: one for the prompt, then one per new token."""

    def __init__(self) -> None:
        self.stamps: list[float] = []

    def put(self, value: torch.Tensor) -> None:
        self.stamps.append(time.perf_counter())

    def end(self) -> None:  # BaseStreamer.end raises; generate calls it once when done
        pass


@torch.inference_mode()
def generate(model: torch.nn.Module, ids: torch.Tensor, new_tokens: int, streamer: BaseStreamer | None = None) -> None:
    """Greedy, exactly `new_tokens` per row: no stop token (`eos_token_id=None` also overrides the
    model's default), the usual fixed-length throughput setting. Forcing the length with
    `min_new_tokens` instead would time two logits processors that mask the EOS logit over the
    whole vocabulary at every step (~0.5 ms at batch 1, ~1 ms at batch 16 on 2 cores)."""
    out = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=new_tokens, do_sample=False,
                         use_cache=True, eos_token_id=None, pad_token_id=0, streamer=streamer)
    if out.shape[1] != ids.shape[1] + new_tokens:
        raise RuntimeError(f"generate returned {out.shape[1] - ids.shape[1]} new tokens, wanted {new_tokens}")


def generation_run(model: torch.nn.Module, batch: int, new_tokens: int) -> Callable[[], float]:
    """Seconds for `batch` rows of exactly `new_tokens` from a 16-token prompt, prefill included."""
    model.eval()
    ids = random_ids(batch, 16)
    return timed(lambda: generate(model, ids, new_tokens))


def decode_run(model: torch.nn.Module, context: int, new_tokens: int) -> Callable[[], float]:
    """Per-token cost of `generate` at batch 1 after a prefill of `context` tokens, prefill excluded."""
    model.eval()
    ids = random_ids(1, context)

    def run() -> float:
        clock = TokenClock()
        generate(model, ids, new_tokens, streamer=clock)
        # stamps[1] follows prefill + first token; the gaps after it are pure decode steps
        return (clock.stamps[-1] - clock.stamps[1]) / (len(clock.stamps) - 2)

    return run


def randomize_for_parity(model: torch.nn.Module, ids: torch.Tensor, key_max: float = 30.0) -> list[float]:
    """Random weights everywhere (RWKV-4 zero-inits several), random time_*, att keys scaled to peak ~key_max."""
    gen = torch.Generator().manual_seed(2)
    keys = [m for n, m in model.named_modules() if isinstance(m, torch.nn.Linear) and n.endswith("key")
            and ".att" in f".{n}"]
    names = " ".join(n for n, _ in model.named_parameters())
    if not keys or "time_decay" not in names or "time_first" not in names:
        raise RuntimeError("parity check needs Linear layers named att*.key and parameters time_decay/time_first")
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "time_decay" in name:
                p.copy_(torch.rand(p.shape, generator=gen) * 7 - 5)  # decay rates e^-5 .. e^2 per token
            elif "time_first" in name:
                p.copy_(torch.rand(p.shape, generator=gen) * 6 - 3)
            elif "mix" in name:
                p.copy_(torch.rand(p.shape, generator=gen))
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.02)
        peaks = [0.0] * len(keys)
        hooks = [m.register_forward_hook(lambda _m, _i, out, j=j: peaks.__setitem__(j, out.abs().max().item()))
                 for j, m in enumerate(keys)]
        for _ in range(2):  # rescaling one layer moves the next layer's input a little, so twice
            model(input_ids=ids)
            for j, m in enumerate(keys):
                m.weight.mul_(key_max / peaks[j])
        model(input_ids=ids)  # leaves the final peaks in `peaks`
    for h in hooks:
        h.remove()
    return peaks


@torch.inference_mode()
def parity(model: torch.nn.Module, seqlen: int) -> Result:
    """Max |logit difference|: one full-sequence forward vs token-by-token with the carried state."""
    model.float().eval()
    ids = random_ids(1, seqlen, seed=3)
    key_peaks = randomize_for_parity(model, ids)
    full = model(input_ids=ids).logits[0]  # (T, V)
    state, steps = None, []
    for t in range(seqlen):
        out = model(input_ids=ids[:, t:t + 1], state=state, use_cache=True)
        state = out.state
        steps.append(out.logits[0, -1])
    diff = (full - torch.stack(steps)).abs()
    return {"seqlen": seqlen, "max_abs_diff": diff.max().item(), "mean_abs_diff": diff.mean().item(),
            "logit_abs_max": full.abs().max().item(), "key_abs_max_per_layer": key_peaks}


def run_worker(task: str, name: str, dtype: str, quick: bool) -> Result:
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    transformers.logging.set_verbosity_error()  # HF RWKV warns on every call that it ignores attention_mask
    warmup, repeats, new_tokens = (1, 2, 16) if quick else (2, 5, 64)
    if task in ("train", "scaling"):
        # Every model trains as rusty_hf trains on CPU (rusty_hf/training/cpu_allocator.py): freed logits
        # and gradients stay on the heap instead of being unmapped and zero-filled again every step.
        # Measured on ours here (B=4, T=256): 0.10 -> 0.004 s of system time per step, ~3-4% of the step;
        # HF RWKV and GPT-2 allocate the same logits, so they get the same treatment.
        from rusty_hf.training.cpu_allocator import keep_freed_memory
        keep_freed_memory()
    model = build_model(name)
    res: Result = {"params_m": sum(p.numel() for p in model.parameters()) / 1e6, "rss_built_mib": peak_rss_mib()}
    # The two sides of a ratio (batch 1 and 16, T=512 and 2048, context 64 and 2048) run interleaved.
    if task == "train":
        sec = interleaved_medians({"step": timed(train_step(model, adamw(model), 4, 256, dtype == "bf16"))}, warmup,
                                  repeats)["step"]
        res |= {"step_s": sec, "tokens_per_s": 4 * 256 / sec, "peak_rss_mib": peak_rss_mib()}
    elif task == "generate":
        runs = {f"b{batch}": generation_run(model, batch, new_tokens) for batch in (1, 16)}
        runs["b1"]()  # VmHWM only grows, so batch 1's peak is read before batch 16 first runs
        res["b1_peak_rss_mib"] = peak_rss_mib()
        seconds = interleaved_medians(runs, 1, repeats)
        res["b16_peak_rss_mib"] = peak_rss_mib()
        for batch in (1, 16):
            res[f"b{batch}_tokens_per_s"] = batch * new_tokens / seconds[f"b{batch}"]
    elif task == "scaling":
        opt = adamw(model)
        seconds = interleaved_medians({f"T{t}": timed(train_step(model, opt, 1, t, False)) for t in (512, 2048)}, 1,
                                      max(1, repeats - 2))
        res |= {f"train_{k}_step_s": v for k, v in seconds.items()}
        res["train_peak_rss_mib"] = peak_rss_mib()
        # Both contexts do the same work per token, so only noise (~±8% per run on the 2-core VM, against
        # a 10% floor) separates them: 2 * repeats - 1 pairs (9 in a full run, not 5), for ~6 s more.
        per_token = interleaved_medians({f"ctx{c}": decode_run(model, c, new_tokens) for c in (64, 2048)}, 1,
                                        2 * repeats - 1)
        res |= {f"decode_{k}_s_per_token": v for k, v in per_token.items()}
    elif task == "parity":
        res |= parity(model, 128 if quick else 512)  # the floor is over 512; quick is only a smoke run
    else:
        raise ValueError(f"unknown worker task {task!r}")
    return res


def spawn(task: str, name: str, dtype: str, quick: bool) -> Result:
    cmd = [sys.executable, __file__, "--worker", task, "--model", name, "--dtype", dtype] + ["--quick"] * quick
    print(f"  {task:<8} {name:<8} {dtype} ...", end="", flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
    if proc.returncode or not lines:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        print(f" ERROR after {time.perf_counter() - start:.0f}s\n{tail}")
        return {"error": tail}
    print(f" {time.perf_counter() - start:.0f}s")
    return json.loads(lines[-1].removeprefix(MARK))


def best_of_rounds(task: str, models: list[str], rounds: int, quick: bool) -> dict[str, Result]:
    """Run `task` for every model in interleaved rounds (ours, hf_rwkv, gpt2, ours, ...) and keep each
    model's best throughput: load from elsewhere only ever slows a run, and interleaving spreads a slow
    spell over all models instead of one."""
    runs: dict[str, list[Result]] = {name: [] for name in models}
    for _ in range(rounds):
        for name in models:
            runs[name].append(spawn(task, name, "fp32", quick))
    best: dict[str, Result] = {}
    for name, results in runs.items():
        ok = [r for r in results if "error" not in r]
        if not ok:
            best[name] = results[-1]
            continue
        merged = dict(ok[0], rounds=len(ok))
        for key in merged:
            if key.endswith("tokens_per_s"):
                merged[key] = max(r[key] for r in ok)
        best[name] = merged
    return best


SECTIONS = ("train", "generate", "scaling", "parity")


def run_all(models: list[str], quick: bool, default: str, rounds: int = 2, sections: tuple[str, ...] = SECTIONS) -> Result:
    """Every measurement (of `sections`), one subprocess each, the baselines in the same run as ours."""
    r: Result = {}
    if "train" in sections:
        r["train"] = best_of_rounds("train", models, rounds, quick)
        if "ours" in models and default == "bf16":
            r["train"]["ours_default"] = spawn("train", "ours", "bf16", quick)
    if "generate" in sections:
        r["generate"] = best_of_rounds("generate", models, rounds, quick)
    for task in ("scaling", "parity"):
        if "ours" in models and task in sections:
            r[task] = spawn(task, "ours", "fp32", quick)
    return r


# (floor, numerator path, denominator path or None, op, bound): the issue's floors, fp32 unless named
FLOORS = [
    ("train tok/s ours / HF RWKV", "train.ours.tokens_per_s", "train.hf_rwkv.tokens_per_s", ">=", 1.8),
    ("train tok/s ours / GPT-2", "train.ours.tokens_per_s", "train.gpt2.tokens_per_s", ">=", 1.15),
    ("train tok/s ours@default / HF RWKV fp32", "train.ours_default.tokens_per_s", "train.hf_rwkv.tokens_per_s",
     ">=", 3.0),
    ("generate b1 tok/s ours / HF RWKV", "generate.ours.b1_tokens_per_s", "generate.hf_rwkv.b1_tokens_per_s",
     ">=", 1.6),
    ("generate ours b16 aggregate / b1", "generate.ours.b16_tokens_per_s", "generate.ours.b1_tokens_per_s",
     ">=", 8.0),
    ("decode s/token ctx2048 / ctx64", "scaling.decode_ctx2048_s_per_token", "scaling.decode_ctx64_s_per_token",
     "<=", 1.10),
    ("train step T2048 / T512 (B=1)", "scaling.train_T2048_step_s", "scaling.train_T512_step_s", "<=", 4.5),
    ("parallel vs recurrent max|dlogit|", "parity.max_abs_diff", None, "<=", 1e-4),
]


def get(r: Result, path: str) -> float | None:
    """Value at a dotted path such as "train.ours.tokens_per_s"; None where unmeasured or errored."""
    for key in path.split("."):
        r = r.get(key) if isinstance(r, dict) else None
    return r


def floors(r: Result, default_dtype: str) -> list[Result]:
    """Each floor with its measured value, bound and PASS / FAIL (N/A where it does not apply)."""
    rows = []
    for name, num, den, op, bound in FLOORS:
        a, b = get(r, num), get(r, den) if den else 1.0
        value = a / b if a is not None and b else None
        if "@default" in name and default_dtype == "fp32":
            status = "N/A (fp32: no fast bf16 on this CPU)"
        elif value is None:
            status = "not measured"
        else:
            status = "PASS" if (value >= bound if op == ">=" else value <= bound) else "FAIL"
        rows.append({"floor": name.replace("@default", f"@{default_dtype}"), "value": value, "op": op,
                     "bound": bound, "status": status})
    return rows


def cell(value: float | None, spec: str) -> str:
    return format("-", ">" + spec.split(".")[0]) if value is None else format(value, spec)


def print_tables(r: Result) -> None:
    m, ms = r["machine"], lambda path: None if get(r, path) is None else 1e3 * get(r, path)  # noqa: E731
    print(f"\nmachine: {m['cpu']}, {m['cores']} cores, torch {m['torch']}, transformers {m['transformers']},"
          f" default CPU precision {m['default_cpu_dtype']}, load average at start {m['loadavg_1min_at_start']:.1f}")
    print(f"\n{'model':<14}{'train tok/s':>12}{'train MiB':>11}{'gen b1 tok/s':>14}{'gen b16 tok/s':>15}{'gen MiB':>9}")
    train, gen = r.get("train", {}), r.get("generate", {})
    for name in dict.fromkeys([*train, *gen]):
        t, g = train.get(name, {}), gen.get(name, {})
        print(f"{name:<14}{cell(t.get('tokens_per_s'), '12.0f')}{cell(t.get('peak_rss_mib'), '11.0f')}"
              f"{cell(g.get('b1_tokens_per_s'), '14.1f')}{cell(g.get('b16_tokens_per_s'), '15.1f')}"
              f"{cell(g.get('b16_peak_rss_mib'), '9.0f')}")
    if "scaling" in r:
        print(f"\nours, B=1: train step T=512 {cell(get(r, 'scaling.train_T512_step_s'), '.2f')} s,"
              f" T=2048 {cell(get(r, 'scaling.train_T2048_step_s'), '.2f')} s; decode after context 64"
              f" {cell(ms('scaling.decode_ctx64_s_per_token'), '.1f')} ms/token,"
              f" after 2048 {cell(ms('scaling.decode_ctx2048_s_per_token'), '.1f')} ms/token")
    print(f"\n{'floor':<44}{'value':>11}  {'bound':<10}status")
    for row in r["floors"]:
        print(f"{row['floor']:<44}{cell(row['value'], '11.3g')}  {row['op']} {row['bound']:<7g}{row['status']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: fewer repeats, shorter generations")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds of train/generate; best kept")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS),
                        help="measurements to run, e.g. `--models ours hf_rwkv --sections train` for the train ratio")
    parser.add_argument("--out", type=Path, help="JSON path (default benchmarks/results/model_speed[_quick].json)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # the rest: set by spawn() for a subprocess
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--dtype", default="fp32", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(MARK + json.dumps(run_worker(args.worker, args.model, args.dtype, args.quick)))
        return 0
    info = machine()
    default = "bf16" if info["default_cpu_dtype"] == "bfloat16" else "fp32"
    print(f"model_speed: {'quick' if args.quick else 'full'} run on {info['cpu']} ({info['cores']} cores)")
    if info["loadavg_1min_at_start"] > 0.5:  # busy cores stall OpenMP's threads: every timing skews
        print(f"  warning: load average {info['loadavg_1min_at_start']:.1f} before starting; timings will be noisy")
    r = {"machine": info, "quick": args.quick,
         **run_all(args.models, args.quick, default, 1 if args.quick else args.rounds, tuple(args.sections))}
    r["floors"] = floors(r, default)
    print_tables(r)
    out = args.out or REPO / "benchmarks" / "results" / f"model_speed{'_quick' if args.quick else ''}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(r, indent=2) + "\n")
    print(f"\nwrote {out}")
    parts = [*r.get("train", {}).values(), *r.get("generate", {}).values(), r.get("scaling", {}), r.get("parity", {})]
    return int(any("error" in p for p in parts) or any(row["status"] == "FAIL" for row in r["floors"]))


if __name__ == "__main__":
    sys.exit(main())
