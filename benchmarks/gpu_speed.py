"""GPU speed, memory and exactness benchmark: TinyRWKV against transformers' RWKV and GPT-2 on CUDA.

One run builds every model (R2 dims: vocab 24,000, ours d_embed 256 / d_hidden 512 / 4 layers;
GPT-2 and HF RWKV 512 wide, 4 layers; random init, nothing from the Hub) and measures:

- train: tokens/s of forward + backward + fused AdamW step at B=8 T=1024 (bf16 autocast and fp32)
  and B=8 T=4096 (bf16), with peak GPU memory (`torch.cuda.max_memory_allocated`, reset per case);
  eager, ours under each WKV backend that applies (triton, torch), GPT-2 and HF RWKV. HF RWKV runs on
  its PyTorch per-token loop: its CUDA kernel comes from the Hub (`kernels-community/rwkv`), which this
  offline benchmark never reaches.
- compile: the same steps under `torch.compile(model, fullgraph=True)` (a graph break is an error, not a
  silent fallback) for ours (default WKV backend) and GPT-2.
- decode: `model.generate` tokens/s (greedy, 16-token prompt, 128 new tokens) at batch 1/16/64, and
  ours' per-token decode cost after a context of 64 vs 2048 tokens (prefill excluded). Ours decodes
  with CUDA graphs (`RUSTY_DECODE_GRAPHS=auto`, the default) and once without them
  (`ours[triton]/no-graphs`), so the graphs' gain is measured in the same run. Each graphed row records
  the captures and replays it caused (`decode_graph_counts`) and is an error when nothing was captured
  or replayed: a failed capture only warns and decodes eagerly, which must not pass for the graphs' speed.
- exactness: max |Δlogits| between the triton and torch WKV backends on one random batch, between
  ours' parallel forward and token-by-token decoding with the carried state, and between greedy
  generation with and without decode graphs (left-padded batch; the tokens must match too).
- recipe: the r2 SFT recipe itself (`recipes/sft.py --config recipes/r2/sft.yaml`, fresh R2 model, its
  64 rows a step of up to 1024 tokens) for a dozen optimizer steps in a subprocess, and its tokens/s
  after warm-up (`train_tokens_per_second_after_warmup` of `train_results.json`: TRL's `num_tokens` from the
  first log after step 2 to the last, so start-up and kernel compilation are left out; the whole-run rate
  is kept too). It needs a tokenizer: `--tokenizer` (default `outputs/tokenizer`), else one is built first
  with recipes/build_tokenizer.py.

Timings synchronize the device, warm up first (compilation included) and keep medians of
interleaved repeats. Each case runs in its own try/except: an OOM or compile error is recorded as
an error string and the rest still run. Each case's result is written as one JSON line as soon as it
finishes (to the `--output` file's `.jsonl` sibling, and to stdout), so a killed run keeps what it
measured. Exit 1 when a floor fails or any case errors. benchmarks/gpu_check.sh runs every section
as its own process and prints the README's GPU claims as PASS/FAIL (benchmarks/gpu_claims.py).

    python3 benchmarks/gpu_speed.py                                   # full run on CUDA
    python3 benchmarks/gpu_speed.py --sections train compile          # some sections (train compile decode exactness recipe)
    python3 benchmarks/gpu_speed.py --device cpu --quick --width 64 --layers 2 --vocab 512  # smoke run

Without a CUDA GPU and without `--device cpu` it prints one line and exits 0, writing nothing.
`--device cpu --quick` runs every code path at tiny sizes (what tests/test_gpu_speed_benchmark.py
does): triton cases are skipped unless TRITON_INTERPRET=1, compile uses the 'aot_eager' backend,
decode graphs run their static-buffer step without capture (`RUSTY_DECODE_GRAPHS=eager`),
memory is the process's peak RSS and floors are reported but not checked.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))  # model_speed's helpers live next to this file
from model_speed import (  # noqa: E402
    REPO, TokenClock, adamw, generate, interleaved_medians, machine, peak_rss_mib, randomize_for_parity, timed,
)

import torch  # noqa: E402
import transformers  # noqa: E402

# Floors from issue 17 (judged on an H100-class GPU, ratios within one run). Training, eager, default
# (triton) backend against GPT-2 eager at the same shape: the anchor (RWKV-LM's CUDA kernel) reached
# 0.97x bf16 and 1.06x fp32 at T=1024, 0.94x at T=4096. Compiled ours against eager ours; peak memory
# against GPT-2's. Decode through generate against GPT-2; RWKV's state is O(1) in context, so the
# per-token cost after 2048 tokens stays within 10% of after 64.
FLOOR_TRAIN_OVER_GPT2 = {"bf16": 0.95, "fp32": 1.0}
FLOOR_COMPILED_OVER_EAGER = 1.3
FLOOR_PEAK_MEMORY_OVER_GPT2 = 1.1
FLOOR_DECODE_OVER_GPT2 = 1.5  # batch 1 and batch 64
FLOOR_DECODE_CTX2048_OVER_CTX64 = 1.10
FLOOR_RECIPE_OVER_BENCH = 0.5  # the r2 SFT recipe's tokens/s after warm-up over ours at B=8 T=1024 bf16
EXACTNESS_BOUND = 1e-4  # max |Δlogits|, fp32
HF_RWKV_NOTE = "HF RWKV: eager, PyTorch per-token loop (its CUDA kernel comes from the Hub, unavailable offline)"
Result = dict[str, Any]
SECTIONS = ("train", "compile", "decode", "exactness", "recipe")  # gpu_check.sh's order


@dataclass(frozen=True)
class Dims:
    vocab: int
    width: int
    layers: int


@dataclass(frozen=True)
class Plan:
    """Sizes of one run: the full GPU plan or the quick CPU smoke plan."""
    train_shapes: tuple[tuple[int, int, str], ...]  # (batch, seqlen, "bf16" | "fp32")
    decode_batches: tuple[int, ...]
    new_tokens: int
    contexts: tuple[int, int]
    parity_len: int
    warmup: int
    repeats: int
    compiled_shapes: int  # the compile section runs the first this many train shapes (quick: one, compiling is slow)
    recipe_args: tuple[str, ...]  # appended to the r2 SFT recipe's command line


FULL = Plan(((8, 1024, "bf16"), (8, 1024, "fp32"), (8, 4096, "bf16")), (1, 16, 64), 128, (64, 2048), 512, 3, 5, 3,
            ("--max_steps", "60", "--num_dialogs", "20000"))  # 12 steps measured 53k tok/s, 80 steps 120-155k (H200)
# QUICK: one bf16 and one fp32 shape cover every code path on CPU (the CPU WKV has no time chunks, so FULL's long
# third shape would only repeat the first one, longer: ~30% of the smoke run's training section).
QUICK = Plan(((2, 32, "bf16"), (2, 32, "fp32")), (1, 2), 8, (8, 64), 16, 1, 2, 1,
             ("--max_steps", "4", "--num_dialogs", "16", "--task_repeats", "1", "--per_device_train_batch_size", "2",
              "--gradient_accumulation_steps", "1", "--max_length", "256", "--use_cpu", "true", "--bf16", "false",
              "--optim", "adamw_torch", "--activation_checkpointing", "false"))


def build(name: str, dims: Dims, max_len: int) -> torch.nn.Module:
    """The three models at `dims` (model_speed.build_model's recipe, with the sizes as arguments)."""
    torch.manual_seed(0)
    v, w, n = dims.vocab, dims.width, dims.layers
    if name == "ours":
        from rusty_hf.models.tiny_rwkv import TinyRWKVConfig, TinyRWKVForCausalLM
        return TinyRWKVForCausalLM(TinyRWKVConfig(vocab_size=v, d_embed=w // 2, d_hidden=w, n_layers=n))
    if name == "hf_rwkv":
        return transformers.RwkvForCausalLM(transformers.RwkvConfig(
            vocab_size=v, hidden_size=w, num_hidden_layers=n, attention_hidden_size=w, intermediate_size=4 * w,
            context_length=max_len, bos_token_id=0, eos_token_id=0))
    if name == "gpt2":
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=v, n_embd=w, n_layer=n, n_head=8, n_positions=max_len, bos_token_id=0, eos_token_id=0))
        model.loss_type = "ForCausalLM"  # unset, transformers logs a warning in forward: a graph break under fullgraph
        return model
    raise ValueError(f"unknown model {name!r}")


def ids_on(device: str, vocab: int, batch: int, length: int, seed: int = 1) -> torch.Tensor:
    # from 1 up: 0 is the eos that generation must not stop on
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(1, vocab, (batch, length), generator=gen).to(device)


def sync(device: str) -> None:
    if device == "cuda":  # kernels run asynchronously: a timer must wait for them
        torch.cuda.synchronize()


def reset_peak(device: str) -> None:
    if device == "cuda":
        torch.cuda.reset_peak_memory_stats()
        return
    with contextlib.suppress(OSError):  # "5" resets the kernel's VmHWM, so each case reads its own peak
        Path("/proc/self/clear_refs").write_text("5")


def peak_mib(device: str) -> float:
    return torch.cuda.max_memory_allocated() / 2**20 if device == "cuda" else peak_rss_mib()


@contextlib.contextmanager
def env_var(name: str, value: str | None) -> Iterator[None]:
    """`name`=`value` for the block (unchanged when `value` is None), restored after."""
    old = os.environ.get(name)
    if value is not None:
        os.environ[name] = value
    try:
        yield
    finally:
        os.environ.pop(name, None)
        if old is not None:
            os.environ[name] = old


@contextlib.contextmanager
def wkv_backend(name: str | None) -> Iterator[None]:
    """RUSTY_WKV_BACKEND=`name` for the block; dynamo is reset because the choice is baked in at trace time."""
    with env_var("RUSTY_WKV_BACKEND", name):
        torch._dynamo.reset()
        try:
            yield
        finally:
            torch._dynamo.reset()


def graph_mode(device: str) -> str:
    """RUSTY_DECODE_GRAPHS for ours' decode cases: CUDA graphs on a GPU; on CPU (smoke runs) the same
    static-buffer step without capture, so the code path still runs."""
    return "auto" if device == "cuda" else "eager"


def backends(device: str) -> list[str]:
    """WKV backends that apply here: triton on CUDA (or on CPU under TRITON_INTERPRET=1), torch always."""
    triton_ok = device == "cuda" or os.environ.get("TRITON_INTERPRET") == "1"
    return (["triton"] if triton_ok else []) + ["torch"]


class CaseLog:
    """Where each finished case goes at once, one JSON line: the `.jsonl` file (truncated when a run starts)
    and stdout. A run killed part-way keeps every case it finished."""

    path: Path | None = None

    @classmethod
    def start(cls, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("")
        cls.path = path

    @classmethod
    def write(cls, section: str, case: str, result: Result) -> None:
        line = json.dumps({"section": section, "case": case, **result}, default=str)
        print(line, flush=True)
        if cls.path is not None:
            with cls.path.open("a") as f:
                f.write(line + "\n")


def guarded(fn: Callable[[], Result], section: str = "", case: str = "") -> Result:
    """One case: its result, or its error as a string so the rest of the run goes on; logged as it ends."""
    try:
        result = fn()
    except Exception as err:  # OOM, compile errors, graph breaks, missing kernels: recorded, not fatal
        result = {"error": f"{type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''}"}
    finally:
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    if section:
        CaseLog.write(section, case, result)
    return result


def measure(run: Callable[[], None], device: str, plan: Plan) -> float:
    """Median seconds of `run` after warm-up (compilation happens there), synchronizing the device."""

    def synced() -> None:
        run()
        sync(device)

    sync(device)
    return interleaved_medians({"run": timed(synced)}, plan.warmup, plan.repeats)["run"]


def training_step(model: torch.nn.Module, opt: torch.optim.Optimizer, ids: torch.Tensor, device: str,
                  dtype: str) -> Callable[[], None]:
    """One training step on `ids` as the benchmarks time it: forward (bf16 autocast for "bf16"), backward, step."""

    def step() -> None:
        with torch.autocast(device, dtype=torch.bfloat16, enabled=dtype == "bf16"):
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return step


def train_case(name: str, backend: str | None, compiled: bool, shape: tuple[int, int, str], dims: Dims,
               device: str, plan: Plan) -> Result:
    """Tokens/s and peak memory of forward + backward + fused AdamW step + zero_grad."""
    batch, seqlen, dtype = shape
    with wkv_backend(backend):
        reset_peak(device)
        model = build(name, dims, seqlen).to(device).train()
        opt = adamw(model)
        if compiled:  # inductor needs a C++ toolchain and is slow to build on CPU; aot_eager still traces
            # fullgraph: a graph break raises instead of quietly running part of the step eagerly
            model = torch.compile(model, backend="inductor" if device == "cuda" else "aot_eager", fullgraph=True)
        ids = ids_on(device, dims.vocab, batch, seqlen)
        seconds = measure(training_step(model, opt, ids, device, dtype), device, plan)
        return {"step_s": seconds, "tokens_per_s": batch * seqlen / seconds, "peak_mib": peak_mib(device)}


def train_cases(device: str, compiled: bool) -> list[tuple[str, str, str | None, bool]]:
    """(key, model, backend, compiled), models alternating so a drift of the machine spreads over all. Compiled:
    ours under the default backend only (the one the floors judge; each compile costs a minute) and GPT-2."""
    if compiled:
        return [(f"ours[{backends(device)[0]}]/compiled", "ours", backends(device)[0], True),
                ("gpt2/compiled", "gpt2", None, True)]
    return [(f"ours[{b}]/eager", "ours", b, False) for b in backends(device)] + [
        ("gpt2/eager", "gpt2", None, False), ("hf_rwkv/eager", "hf_rwkv", None, False)]


def shape_key(shape: tuple[int, int, str]) -> str:
    return f"B{shape[0]}_T{shape[1]}_{shape[2]}"


def run_train(dims: Dims, device: str, plan: Plan, compiled: bool = False) -> Result:
    """The train section (eager), or with ``compiled`` the compile section (the first compiled_shapes shapes)."""
    out: Result = {}
    section = "compile" if compiled else "train"
    for shape in plan.train_shapes[:plan.compiled_shapes] if compiled else plan.train_shapes:
        row = out.setdefault(shape_key(shape), {})
        for key, name, backend, comp in train_cases(device, compiled):
            print(f"  {section} {shape_key(shape)} {key} ...", flush=True)
            row[key] = guarded(lambda: train_case(name, backend, comp, shape, dims, device, plan),
                               section, f"{shape_key(shape)} {key}")
    return out


class SyncedClock(TokenClock):
    """TokenClock that first waits for the device, so each stamp marks a finished token."""

    def __init__(self, device: str) -> None:
        super().__init__()
        self.device = device

    def put(self, value: torch.Tensor) -> None:
        sync(self.device)
        super().put(value)


@contextlib.contextmanager
def graph_counts(mode: str | None) -> Iterator[Result]:
    """What decoding did in the block (decode_graph_counts' differences), filled in when it ends; with
    graphs on (`mode` auto or eager) a block that captured or replayed nothing (resp. ran no static step)
    raises: a failed capture only warns and decodes eagerly, which must not be timed as the graphs."""
    from rusty_hf.models.tiny_rwkv.decode_graphs import decode_graph_counts

    before, counts = decode_graph_counts(), {}
    yield counts
    counts.update({k: v - before[k] for k, v in decode_graph_counts().items()})
    if mode == "auto" and not (counts["captures"] and counts["replays"]):
        raise RuntimeError(f"decode graphs: nothing captured or replayed ({counts}); this row would time eager decoding")
    if mode == "eager" and not counts["static_steps"]:
        raise RuntimeError(f"decode graphs (eager mode): no static-buffer step ran ({counts})")


def decode_case(name: str, backend: str | None, dims: Dims, device: str, plan: Plan, graphs: str | None = None) -> Result:
    """Aggregate `generate` tokens/s per batch (16-token prompt, prefill included), batches interleaved.
    `graphs`: RUSTY_DECODE_GRAPHS for the case (ours only; with graphs on, the counts are checked)."""
    max_len = 16 + plan.new_tokens
    checked = graphs if name == "ours" else None
    with wkv_backend(backend), env_var("RUSTY_DECODE_GRAPHS", graphs), graph_counts(checked) as counts:
        model = build(name, dims, max_len).to(device).eval()
        runs = {f"b{b}": (lambda ids=ids_on(device, dims.vocab, b, 16): generate(model, ids, plan.new_tokens))
                for b in plan.decode_batches}
        reset_peak(device)
        seconds = interleaved_medians({k: timed(lambda r=r: (r(), sync(device))) for k, r in runs.items()},
                                      1, plan.repeats)
        res = {f"{k}_tokens_per_s": int(k[1:]) * plan.new_tokens / s for k, s in seconds.items()}
    return res | {"peak_mib": peak_mib(device), "graphs": counts if checked else None}


def context_case(dims: Dims, device: str, plan: Plan) -> Result:
    """Ours at batch 1: seconds per new token after a prompt of each context length (prefill excluded)."""
    model = build("ours", dims, max(plan.contexts) + plan.new_tokens).to(device).eval()

    def per_token(context: int) -> Callable[[], float]:
        ids = ids_on(device, dims.vocab, 1, context)

        def run() -> float:
            clock = SyncedClock(device)
            generate(model, ids, plan.new_tokens, streamer=clock)
            # stamps[1] follows prefill + first token; the gaps after it are pure decode steps
            return (clock.stamps[-1] - clock.stamps[1]) / (len(clock.stamps) - 2)

        return run

    # Both sides do the same work per token, so only noise separates them: 2 * repeats - 1 pairs
    with env_var("RUSTY_DECODE_GRAPHS", graph_mode(device)):
        costs = interleaved_medians({f"ctx{c}": per_token(c) for c in plan.contexts}, 1, 2 * plan.repeats - 1)
    short, long = (costs[f"ctx{c}"] for c in plan.contexts)
    return {"contexts": list(plan.contexts), "short_s_per_token": short, "long_s_per_token": long,
            "long_over_short": long / short}


def run_decode(dims: Dims, device: str, plan: Plan) -> Result:
    """Ours under each backend with decode graphs, ours without them (the graphs' gain, same run), GPT-2, HF RWKV."""
    default = backends(device)[0]
    cases = [(f"ours[{b}]", "ours", b, graph_mode(device)) for b in backends(device)]
    cases += [(f"ours[{default}]/no-graphs", "ours", default, "off"), ("gpt2", "gpt2", None, None),
              ("hf_rwkv", "hf_rwkv", None, None)]
    out: Result = {}
    for key, name, backend, graphs in cases:
        print(f"  decode {key} ...", flush=True)
        out[key] = guarded(lambda: decode_case(name, backend, dims, device, plan, graphs), "decode", key)
    print("  decode context scaling ...", flush=True)
    out["context_scaling"] = guarded(lambda: context_case(dims, device, plan), "decode", "context_scaling")
    return out


@torch.inference_mode()
def logits_with(model: torch.nn.Module, ids: torch.Tensor, backend: str) -> torch.Tensor:
    with wkv_backend(backend):
        return model(input_ids=ids).logits.float()


def backend_diff(dims: Dims, device: str, plan: Plan) -> Result:
    """Max |Δlogits| between the triton and torch WKV backends, fp32, same weights and batch."""
    if "triton" not in backends(device):
        return {"skipped": "triton needs CUDA (or TRITON_INTERPRET=1 on CPU)"}
    model = build("ours", dims, plan.parity_len).to(device).float().eval()
    ids = ids_on(device, dims.vocab, 2, plan.parity_len, seed=3)
    randomize_for_parity(model, ids)  # RWKV-4 zero-inits several weights: a random model exercises WKV fully
    a, b = logits_with(model, ids, "triton"), logits_with(model, ids, "torch")
    return {"seqlen": plan.parity_len, "max_abs_diff": (a - b).abs().max().item()}


def parallel_vs_recurrent(dims: Dims, device: str, plan: Plan) -> Result:
    """Max |Δlogits|: one full-sequence forward vs token-by-token with the carried state (default backend)."""
    model = build("ours", dims, plan.parity_len).to(device).float().eval()
    ids = ids_on(device, dims.vocab, 1, plan.parity_len, seed=3)
    key_peaks = randomize_for_parity(model, ids)  # outside inference mode: it rewrites the weights in place
    with torch.inference_mode():
        full = model(input_ids=ids).logits[0]
        state, steps = None, []
        for t in range(plan.parity_len):
            out = model(input_ids=ids[:, t:t + 1], state=state, use_cache=True)
            state = out.state
            steps.append(out.logits[0, -1])
    diff = (full - torch.stack(steps)).abs()
    return {"seqlen": plan.parity_len, "max_abs_diff": diff.max().item(), "key_abs_max_per_layer": key_peaks}


def graphs_vs_eager(dims: Dims, device: str, plan: Plan) -> Result:
    """Greedy generation (batch 4, left-padded) with decode graphs vs without: same tokens, max |Δscores|."""
    model = build("ours", dims, plan.parity_len).to(device).float().eval()
    ids = ids_on(device, dims.vocab, 4, 16, seed=5)
    randomize_for_parity(model, ids)
    mask = torch.ones_like(ids)
    mask[1, :5] = mask[3, :9] = 0  # left padding: the graphed step runs the masked path
    outs, counts = {}, {}
    for mode in (graph_mode(device), "off"):
        with env_var("RUSTY_DECODE_GRAPHS", mode), torch.inference_mode(), graph_counts(mode) as counts[mode]:
            outs[mode] = model.generate(ids, attention_mask=mask, max_new_tokens=plan.new_tokens, do_sample=False,
                                        eos_token_id=None, pad_token_id=0, output_scores=True,
                                        return_dict_in_generate=True)
    graphed, eager = outs[graph_mode(device)], outs["off"]
    diff = (torch.stack(graphed.scores) - torch.stack(eager.scores)).abs().max().item()
    return {"mode": graph_mode(device), "max_abs_diff": diff, "graphs": counts[graph_mode(device)],
            "same_tokens": bool(torch.equal(graphed.sequences, eager.sequences))}


def run_exactness(dims: Dims, device: str, plan: Plan) -> Result:
    print("  exactness ...", flush=True)
    cases = {"triton_vs_torch": backend_diff, "parallel_vs_recurrent": parallel_vs_recurrent,
             "decode_graphs_vs_eager": graphs_vs_eager}
    return {key: guarded(lambda: case(dims, device, plan), "exactness", key) for key, case in cases.items()}


def recipe_tokenizer(path: Path | None, work: Path, quick: bool) -> Path:
    """The tokenizer the recipe runs with: ``path`` if it holds one, else a fresh build under ``work``."""
    if path is not None and (path / "tokenizer.json").is_file():
        return path
    out = work / "tokenizer"
    small = ["--vocab_size", "1024", "--max_corpus_mb", "0.3", "--n_dialogs", "50", "--heldout_mb", "0.05"] if quick else []
    subprocess.run([sys.executable, "recipes/build_tokenizer.py", "--output_dir", str(out), *small], cwd=REPO,
                   check=True, capture_output=True, text=True)
    return out


def run_recipe(dims: Dims, device: str, plan: Plan, tokenizer: Path | None, quick: bool) -> Result:
    """The r2 SFT recipe for a few steps at the benchmark's dims; its logged tokens/s (train_results.json)."""
    def case() -> Result:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            tok_dir = recipe_tokenizer(tokenizer, work, quick)
            argv = [sys.executable, "recipes/sft.py", "--config", "recipes/r2/sft.yaml", "--tokenizer_name_or_path",
                    str(tok_dir), "--output_dir", str(work / "sft"), "--d_hidden", str(dims.width),
                    "--d_embed", str(dims.width // 2), "--n_layers", str(dims.layers), "--save_strategy", "no",
                    "--report_to", "none", "--logging_steps", "1", *plan.recipe_args]
            # the recipe imports rusty_hf from this checkout, as this script does, installed or not
            path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
            env = {**os.environ, "PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
            proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True)
            if proc.returncode != 0:  # the exception (a traceback's last line) first: the case log keeps line one
                lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
                tail = "\n".join(lines[-25:])
                raise RuntimeError(f"recipes/sft.py failed (exit {proc.returncode}): {lines[-1]}\n{tail}")
            metrics = json.loads((work / "sft" / "train_results.json").read_text())
            after_warmup = metrics.get("train_tokens_per_second_after_warmup")
            if after_warmup is None:
                raise RuntimeError(f"the recipe logged no tokens/s after warm-up: {metrics}")
            return {"tokens_per_s": after_warmup, "whole_run_tokens_per_s": metrics.get("train_tokens_per_second"),
                    "steps": metrics.get("train_steps"), "tokens": metrics.get("train_num_tokens"),
                    "runtime_s": metrics.get("train_runtime"), "command": " ".join(argv[1:])}

    print("  recipe r2 SFT ...", flush=True)
    return {"r2_sft": guarded(case, "recipe", "r2_sft")}


def tok(r: Result, *path: str) -> float | None:
    """Value at `path` in the results; None where unmeasured or errored."""
    for key in path:
        r = r.get(key) if isinstance(r, dict) else None
    return r if isinstance(r, (int, float)) else None


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def floors(r: Result, device: str, plan: Plan) -> list[Result]:
    """The issue's floors with value and PASS / FAIL; on CPU reported but 'not checked on CPU'."""
    backend = "triton" if "triton" in backends(device) else "torch"
    ours, compiled = f"ours[{backend}]/eager", f"ours[{backend}]/compiled"
    rows = []
    for i, shape in enumerate(plan.train_shapes):
        key = shape_key(shape)
        rate = lambda case: tok(r, "train", key, case, "tokens_per_s")  # noqa: E731
        rows += [(f"train tok/s ours / GPT-2 ({key}, eager)", ">=", FLOOR_TRAIN_OVER_GPT2[shape[2]],
                  ratio(rate(ours), rate("gpt2/eager"))),
                 (f"train peak memory ours / GPT-2 ({key}, eager)", "<=", FLOOR_PEAK_MEMORY_OVER_GPT2,
                  ratio(tok(r, "train", key, ours, "peak_mib"), tok(r, "train", key, "gpt2/eager", "peak_mib")))]
        if i < plan.compiled_shapes:  # the compile section runs these shapes only
            rows.append((f"train tok/s ours compiled / eager ({key})", ">=", FLOOR_COMPILED_OVER_EAGER,
                         ratio(rate(compiled), rate(ours))))
    for b in (plan.decode_batches[0], plan.decode_batches[-1]):
        rows.append((f"decode tok/s ours / GPT-2 (batch {b})", ">=", FLOOR_DECODE_OVER_GPT2,
                     ratio(tok(r, "decode", f"ours[{backend}]", f"b{b}_tokens_per_s"),
                           tok(r, "decode", "gpt2", f"b{b}_tokens_per_s"))))
    rows += [("decode s/token ctx long / ctx short", "<=", FLOOR_DECODE_CTX2048_OVER_CTX64,
             tok(r, "decode", "context_scaling", "long_over_short")),
            ("parallel vs recurrent max|dlogit|", "<=", EXACTNESS_BOUND,
             tok(r, "exactness", "parallel_vs_recurrent", "max_abs_diff")),
            ("triton vs torch max|dlogit|", "<=", EXACTNESS_BOUND,
             tok(r, "exactness", "triton_vs_torch", "max_abs_diff")),
            ("decode graphs vs eager max|dscore| (greedy, left-padded)", "<=", EXACTNESS_BOUND,
             tok(r, "exactness", "decode_graphs_vs_eager", "max_abs_diff")),
            (f"r2 SFT recipe tok/s after warm-up / ours {shape_key(plan.train_shapes[0])} eager", ">=", FLOOR_RECIPE_OVER_BENCH,
             ratio(tok(r, "recipe", "r2_sft", "tokens_per_s"),
                   tok(r, "train", shape_key(plan.train_shapes[0]), ours, "tokens_per_s")))]
    out = []
    for name, op, bound, value in rows:
        if value is None:
            status = "not measured"
        elif device != "cuda":
            status = "not checked on CPU"
        else:
            status = "PASS" if (value >= bound if op == ">=" else value <= bound) else "FAIL"
        out.append({"floor": name, "value": value, "op": op, "bound": bound, "status": status})
    return out


def fmt(value: float | None, spec: str = ".0f") -> str:
    return "-" if value is None else format(value, spec)


def print_train(train: Result) -> None:
    for shape, row in train.items():
        print(f"\n### train {shape}\n\n| case | tokens/s | peak MiB | ours/GPT-2 | ours/HF RWKV | error |\n|---|---|---|---|---|---|")
        hf = tok(row, "hf_rwkv/eager", "tokens_per_s")
        for key, res in row.items():
            mode = key.split("/")[1]
            value = tok(res, "tokens_per_s")
            mine = key.startswith("ours")
            vs_gpt2 = ratio(value, tok(row, f"gpt2/{mode}", "tokens_per_s")) if mine else None
            print(f"| {key} | {fmt(value)} | {fmt(tok(res, 'peak_mib'))} | {fmt(vs_gpt2, '.2f')} |"
                  f" {fmt(ratio(value, hf) if mine else None, '.2f')} | {res.get('error', '')} |")
    print(f"\n{HF_RWKV_NOTE}")


def print_decode(decode: Result, plan: Plan) -> None:
    cols = [f"b{b}" for b in plan.decode_batches]
    print(f"\n### decode ({plan.new_tokens} new tokens, 16-token prompt, greedy)\n")
    print("| model | " + " | ".join(f"{c} tok/s" for c in cols) + " | peak MiB | graph captures / replays | error |")
    print("|---" * (len(cols) + 4) + "|")
    for key, res in decode.items():
        if key != "context_scaling":
            cells = " | ".join(fmt(tok(res, f"{c}_tokens_per_s"), ".1f") for c in cols)
            graphs = res.get("graphs") or {}
            counts = f"{graphs['captures']} / {graphs['replays']}" if graphs else "-"
            print(f"| {key} | {cells} | {fmt(tok(res, 'peak_mib'))} | {counts} | {res.get('error', '')} |")
    base = {k: decode.get(k, {}) for k in ("gpt2", "hf_rwkv")}
    base |= {k: v for k, v in decode.items() if k.endswith("/no-graphs")}
    for key in (k for k in decode if k.startswith("ours") and not k.endswith("/no-graphs")):
        for other, res in base.items():
            ratios = ", ".join(f"{c} {fmt(ratio(tok(decode[key], f'{c}_tokens_per_s'), tok(res, f'{c}_tokens_per_s')), '.2f')}"
                               for c in cols)
            print(f"{key} / {other}: {ratios}")
    cs = decode.get("context_scaling", {})
    print(f"\nours per-token decode: ctx {plan.contexts[0]} {fmt(tok(cs, 'short_s_per_token') and 1e3 * cs['short_s_per_token'], '.2f')} ms,"
          f" ctx {plan.contexts[1]} {fmt(tok(cs, 'long_s_per_token') and 1e3 * cs['long_s_per_token'], '.2f')} ms"
          f" {cs.get('error', '')}")


def print_report(r: Result, plan: Plan) -> None:
    m = r["machine"]
    print(f"\nmachine: {m.get('gpu') or m['cpu']}, torch {m['torch']}, triton {m['triton']},"
          f" transformers {m['transformers']}, {m['date']}")
    if "train" in r:
        print_train(r["train"])
    if "decode" in r:
        print_decode(r["decode"], plan)
    if "recipe" in r:
        rec = r["recipe"]["r2_sft"]
        print(f"\n### r2 SFT recipe\n\n{fmt(tok(rec, 'tokens_per_s'))} tokens/s after warm-up"
              f" ({fmt(tok(rec, 'whole_run_tokens_per_s'))} over the whole run of {rec.get('steps', '-')} steps)"
              f" {rec.get('error', '')}")
    if "exactness" in r:
        print("\n### exactness (fp32, max |Δlogits|)\n")
        for key, res in r["exactness"].items():
            same = f" same tokens: {res['same_tokens']}" if "same_tokens" in res else ""
            print(f"- {key}: {fmt(tok(res, 'max_abs_diff'), '.3g')}{same} {res.get('error', res.get('skipped', ''))}")
    print("\n### floors\n\n| floor | value | bound | status |\n|---|---|---|---|")
    for row in r["floors"]:
        print(f"| {row['floor']} | {fmt(row['value'], '.3g')} | {row['op']} {row['bound']:g} | {row['status']} |")


def gpu_machine(device: str) -> Result:
    """model_speed's machine record plus the GPU and triton version."""
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    gpu = torch.cuda.get_device_name() if device == "cuda" else None
    return machine() | {"device": device, "gpu": gpu, "triton": triton_version,
                        "cuda": torch.version.cuda if device == "cuda" else None}


def errors(node: Any) -> list[str]:
    """Every case's error string, however deeply the results nest."""
    if not isinstance(node, dict):
        return []
    found = [node["error"]] if "error" in node else []
    return found + [e for value in node.values() for e in errors(value)]


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--quick", action="store_true", help="tiny sizes: B=2, T=32, 8 new tokens")
    parser.add_argument("--sections", nargs="+", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--tokenizer", type=Path, default=REPO / "outputs" / "tokenizer",
                        help="tokenizer for the recipe section; when the folder holds none, one is built in a temp folder")
    parser.add_argument("--width", type=int, default=512, help="d_hidden (ours' embedding is half)")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=24000)
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "results" / "gpu_speed.json",
                        help="the whole run's JSON, at the end; each case is also a line of its .jsonl sibling at once")
    return parser.parse_args()


def merge(into: Result, new: Result) -> Result:
    """``new`` merged into ``into`` key by key, nested dicts recursively (compile rows join the train shapes)."""
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            merge(into[key], value)
        else:
            into[key] = value
    return into


def main() -> int:
    args = parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("gpu_speed: no CUDA GPU here; run it on a GPU machine, or smoke-test on CPU with"
              " `python3 benchmarks/gpu_speed.py --device cpu --quick --width 64 --layers 2 --vocab 512`")
        return 0
    transformers.logging.set_verbosity_error()  # HF RWKV warns on every call that it ignores attention_mask
    dims, plan = Dims(args.vocab, args.width, args.layers), QUICK if args.quick else FULL
    r: Result = {"machine": gpu_machine(args.device), "dims": vars(dims), "plan": vars(plan), "note": HF_RWKV_NOTE}
    print(f"gpu_speed: {'quick' if args.quick else 'full'} run on {r['machine']['gpu'] or r['machine']['cpu']}")
    CaseLog.start(args.output.with_suffix(".jsonl"))
    runners = {"train": run_train, "compile": lambda *a: run_train(*a, compiled=True), "decode": run_decode,
               "exactness": run_exactness, "recipe": lambda *a: run_recipe(*a, tokenizer=args.tokenizer, quick=args.quick)}
    r["sections"] = args.sections
    for section in args.sections:  # compile rows go under "train", next to the eager rows of their shape
        merge(r, {"train" if section == "compile" else section: runners[section](dims, args.device, plan)})
    r["floors"] = floors(r, args.device, plan)
    print_report(r, plan)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(r, indent=2, default=str) + "\n")
    print(f"\nwrote {args.output}")
    failed = any(row["status"] == "FAIL" for row in r["floors"])
    return int(failed or bool(errors(r)))


if __name__ == "__main__":
    sys.exit(main())
