"""Markdown tables made from result JSON: one function per table, named as the docs' markers name it.

    from result_tables import CPU_TABLES
    print(CPU_TABLES["model-speed"](Path(".")))    # the table, from benchmarks/results/model_speed.json

Each renderer reads only its JSON (a quickstart's floors.json, a benchmark's record, a GPU session's case
lines) and returns the table (with a one-line source caption), so a number in the docs is the number in the
file. ``render_tables.py`` puts them between ``<!-- table:NAME -->`` markers and checks they still agree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

RESULTS = Path("benchmarks/results")


def load(root: Path, name: str) -> object:
    path = root / RESULTS / name
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return json.loads(path.read_text(encoding="utf-8"))


def table(header: list[str], rows: list[list[str]], numeric: set[int] = frozenset()) -> str:
    """A Markdown table; columns whose index is in ``numeric`` are right-aligned."""
    rule = "|" + "|".join("---:" if i in numeric else "---" for i in range(len(header))) + "|"
    lines = ["| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |" for cells in [header, *rows]]
    return "\n".join([lines[0], rule, *lines[1:]])


def num(value: float | None, digits: int = 0) -> str:
    """``1,234`` / ``0.785``: thousands separators, a fixed number of decimals, ``-`` for nothing."""
    return "-" if value is None else f"{value:,.{digits}f}"


def ratio(a: float, b: float, digits: int = 2) -> str:
    return f"{a / b:.{digits}f}"


def caption(source: str, *details: str) -> str:
    return f"From `{source}`" + (f" ({'; '.join(d for d in details if d)})" if any(details) else "") + ":\n\n"


# ---- the quickstart --------------------------------------------------------------------------------------

def quickstart_floors(root: Path) -> str:
    """recipes/tiny/floors.py's records (floors.json), with the run they came from and its stage times."""
    data = load(root, "quickstart_floors.json")
    run, records = (data.get("run", {}), data["floors"]) if isinstance(data, dict) else ({}, data)
    rows = []
    for r in records:
        value = r["value"]
        shown = "-" if value is None else f"{value:.3f}" if abs(value) < 10 else f"{value:.0f}"
        if r.get("stderr") is not None:
            shown += f" ± {r['stderr']:.3f}"
        if r.get("n") is not None:
            shown += f" (n={r['n']})"
        verdict = "n/a" if r["passed"] is None else "PASS" if r["passed"] else "FAIL"
        rows.append([r["floor"], shown, r["bound"], verdict])
    head = ""
    if run:
        stages = ", ".join(f"{stage} {seconds} s" for stage, seconds in run.get("stages", {}).items())
        head = (f"{run['name']}, {run['date']}, at {run['commit']} ({run['machine']}; `{run['command']}`): "
                f"**{run['seconds']} s** in all" + (f" ({stages})" if stages else "") + ".\n\n")
    return head + caption("benchmarks/results/quickstart_floors.json") + table(["floor", "measured", "bound", ""], rows, {1, 2})


# ---- CPU benchmarks --------------------------------------------------------------------------------------

def model_speed(root: Path) -> str:
    d = load(root, "model_speed.json")
    m = d["machine"]
    floors = table(["floor", "measured", "bound", ""],
                   [[f["floor"], f"{f['value']:.3g}" if f["value"] < 1e-3 else f"{f['value']:.2f}", f"{f['op']} {f['bound']:g}",
                     f["status"]] for f in d["floors"]], {1, 2})
    models = {"ours": "TinyRWKV (ours)", "hf_rwkv": "transformers `RwkvForCausalLM`", "gpt2": "transformers `GPT2LMHeadModel`"}
    speed = table(["model (4 layers, width 512, vocab 24,000)", "train tok/s (B=4, T=256)", "generate b1 tok/s",
                   "generate b16 tok/s", "train peak RSS MiB"],
                  [[label, num(d["train"][k]["tokens_per_s"]), num(d["generate"][k]["b1_tokens_per_s"], 1),
                    num(d["generate"][k]["b16_tokens_per_s"]), num(d["train"][k]["peak_rss_mib"])]
                   for k, label in models.items()], {1, 2, 3, 4})
    default = d["train"].get("ours_default")
    extra = (f"\n\nOurs at the default CPU precision ({m['default_cpu_dtype']}): train {num(default['tokens_per_s'])} tok/s."
             if default else "")
    return (caption("benchmarks/results/model_speed.json", m["date"], f"{m['cpu']}, {m['cores']} cores",
                    f"torch {m['torch']}, transformers {m['transformers']}",
                    f"load {m['loadavg_1min_at_start']:.1f} at start")
            + floors + "\n\n" + speed + extra)


def rewards_speed(root: Path) -> str:
    d = load(root, "rewards_speed.json")
    p, r = d["python_execution"], d["rust_reward"]
    rows = [
        ["execution reward: sandboxed evaluations/s, batch of 64, every layer", f"{p['evals_per_s']:.1f}",
         f">= {p['floor_evals_per_s']:g}", "PASS" if p["meets_evals_floor"] else "FAIL"],
        ["the same as bare subprocesses", f"{p['bare_evals_per_s']:.1f}", "", ""],
        ["isolation overhead (wall / CPU time)", f"{p['overhead_ratio']:.2f}x / {p['cpu_overhead_ratio']:.2f}x",
         f"<= {p['floor_overhead_ratio']:g}x", "PASS" if p["meets_overhead_floor"] else "FAIL"],
        ["rust reward: fresh completions/s", f"{r['fresh_per_s']:.1f}", f">= {r['floor_fresh_per_s']:g}",
         "PASS" if r["meets_fresh_floor"] else "FAIL"],
        ["rust reward: cache hits/s", num(r["cache_hits_per_s"]), f">= {r['floor_cache_hits_per_s']:,.0f}",
         "PASS" if r["meets_cache_floor"] else "FAIL"],
        ["rust reward: idiomatic > unwrap-heavy > not compiling > not Rust",
         " > ".join(f"{s:g}" for s in r["ordering_scores"].values()), "in order",
         "PASS" if r["ordering_holds"] else "FAIL"],
    ]
    layers = table(["layers (execution reward, same run)", "evaluations/s"],
                   [[name, f"{v['evals_per_s']:.1f}"] for name, v in p["per_layer"].items()], {1})
    return (caption("benchmarks/results/rewards_speed.json", f"{p['rounds']} rounds, {p['workers']} workers")
            + table(["measure", "value", "floor", ""], rows, {1}) + "\n\n" + layers)


def sandbox_overhead(root: Path) -> str:
    d = load(root, "sandbox_overhead.json")
    rows = [[name, f"{v['median_ms']:.1f}", f"{v['min_ms']:.1f}", f"{v['ratio_to_bare']:.2f}",
             num(v["cpu_ms"], 1), "-" if v["cpu_ratio_to_bare"] is None else f"{v['cpu_ratio_to_bare']:.2f}"]
            for name, v in d["latency_pass"].items()]
    t = d["throughput"]
    return (caption("benchmarks/results/sandbox_overhead.json", "one passing test per run")
            + table(["layers", "median ms", "min ms", "x bare", "CPU ms", "CPU x bare"], rows, {1, 2, 3, 4, 5})
            + f"\n\nA batch of {t['batch']} on {t['workers']} workers: {t['sandboxed_runs_per_s']:g} runs/s sandboxed, "
              f"{t['bare_runs_per_s']:g} bare ({t['overhead_ratio']:g}x).")


def terminal_data(root: Path) -> str:
    d = load(root, "terminal_data.json")
    runs, builds = d["runs"], d["builds"]
    rows = []
    for name, block, old, new in (("a reference command's run", runs, "copy + run", "trial"),
                                  ("a fixture's build", builds, "seven git processes", "materialize")):  # fmt: skip
        for unit, label in (("median_ms", "median ms"), ("cpu_ms", "CPU ms")):
            rows.append([f"{name}, {label}", num(block[old][unit], 2), num(block[new][unit], 2),
                         ratio(block[old][unit], block[new][unit])])
    out = (caption("benchmarks/results/terminal_data.json", d["machine"], f"`{d['command'].strip()}`",
                   f"{runs['pairs']} (fixture, command) pairs and {builds['fixtures']} fixtures, {runs['rounds']} "
                   "interleaved rounds")  # fmt: skip
           + table(["part", "before (up to 30177e5)", "now", "before / now"], rows, {1, 2, 3})
           + f"\n\nOutputs that differ (but for digits): {runs['outputs_that_differ']} of "
             f"{runs['pairs'] * runs['rounds']}; commit hashes that differ: {builds['hashes_that_differ']} of "
             f"{builds['fixtures'] * builds['rounds']}.")
    if "recipe_data" in d:
        r = d["recipe_data"]
        out += (f" The recipe's terminal data: {num(r['rows'])} rows on {num(r['fixtures'])} fixtures, "
                f"{num(r['sandbox_runs'])} sandbox runs, {r['total_s']:g} s on {r['workers']} threads.")
    return out


def parser_cost(root: Path) -> str:
    d = load(root, "parser_cost.json")
    worst: dict[str, dict] = {}
    for row in d["rows"]:
        if row["entry"] not in worst or row["ms"] > worst[row["entry"]]["ms"]:
            worst[row["entry"]] = row
    over = sum(row["ms"] > d["floor_ms"] for row in d["rows"])
    rows = [[f"`{entry}`", w["case"], num(w["chars"]), f"{w['ms']:.3g}", "PASS" if w["ms"] <= d["floor_ms"] else "FAIL"]
            for entry, w in worst.items()]
    return (caption("benchmarks/results/parser_cost.json", f"best of {d['tries']} tries",
                    f"load {d['load_at_start']:.1f} at start", f"{over} of {len(d['rows'])} parses over the floor")
            + table(["parser", "its slowest input", "chars", "ms", f"<= {d['floor_ms']:g} ms"], rows, {2, 3}))


def inference(root: Path) -> str:
    d = load(root, "inference.json")
    rows = [[r["mode"], r["device"], "-", "-", f"skipped: {r['skipped']}"] if "skipped" in r else
            [r["mode"], r["device"], f"{r['weight_mb']:.1f}", f"{r['peak_mb']:.1f}", f"{r['tokens_per_s']:.1f}"]
            for r in d["rows"]]
    f = d["floors"]
    return (caption("benchmarks/results/inference.json", d["model"], f"{d['threads']} thread", f"{d['new_tokens']} new tokens")
            + table(["mode", "device", "weight MB", "peak MB", "tokens/s"], rows, {2, 3, 4})
            + f"\n\nint8 / fp32: weight memory {f['int8_weight_ratio']:.2f}x (floor <= 0.45x), tokens/s "
              f"{f['int8_tokens_ratio']:.2f}x (floor >= 0.75x).")


def constrained_decoding(root: Path) -> str:
    d = load(root, "constrained_decoding.json")
    rows = [[name, f"{v['valid']} / {d['samples']}", f"{v['validity']:.3f}", f"{v['tokens_per_s']:.1f}"]
            for name, v in d["results"].items()]
    return (caption("benchmarks/results/constrained_decoding.json", f"`{Path(d['model']).name}`",
                    f"{d['samples']} samples of up to {d['max_new_tokens']} tokens")
            + table(["decoding", "valid actions", "validity", "tokens/s"], rows, {1, 2, 3})
            + f"\n\nCost of constraining: {d['speed_cost']:.2f}x (floor <= {d['floors']['max_speed_cost']:g}x); "
              f"the processor takes {d['processor_ms_per_step']:.2f} ms a step.")


def terminal_hacks(root: Path) -> str:
    """benchmarks/terminal_hacks.py's records: full-reward rate per hack, before issue 39's checks and now."""
    runs = {name: load(root, f"terminal_hacks{name}.json") for name in ("_before", "", "_dev_before", "_dev")}

    def cell(d: dict, key: str) -> str:
        row = d["commands"].get(key) or d.get(key)
        return "-" if row is None else f"{row['full_reward']}/{d['requests']} ({row['rate']:.1%})"

    now = runs[""]
    keys = [*now["commands"], "issue_five", "any_hack", "reference"]
    labels = {"issue_five": "any of the issue's five", "any_hack": "any of them", "reference": "reference action"}
    rows = [[labels.get(k, k), f"`{now['commands'][k]['command']}`" if k in now["commands"] else "",
             *(cell(runs[name], k) for name in ("_before", "", "_dev_before", "_dev"))] for k in keys]
    header = ["hack", "command", f"held-out, {runs['_before']['commit']}", f"held-out, {now['commit']}",
              f"dev, {runs['_dev_before']['commit']}", f"dev, {runs['_dev']['commit']}"]
    return (caption("benchmarks/results/terminal_hacks*.json", "requests judged by output; full terminal reward")
            + table(header, rows, {2, 3, 4, 5}))


def cpu_parts(root: Path) -> str:
    d = load(root, "cpu_parts.json")
    head, step, gen = d["fused_head"], d["sampling_step"], d["generate"]
    rows = [
        [f"fused LM head, forward + backward, {num(head['shape']['positions'])} positions x {head['shape']['width']} -> "
         f"{num(head['shape']['vocab'])} (entropy and top-1 on)", "TRL's CPU fold", f"{head['trl_ms']:.1f}",
         f"{head['ours_ms']:.1f}", f"{head['speedup']:.2f}x"],
        [f"sampling step, {step['shape']['rows']} x {num(step['shape']['vocab'])}", "torch.multinomial",
         f"{step['torch_ms']:.2f}", f"{step['ours_ms']:.2f}", f"{step['speedup']:.2f}x"],
        [f"generate, {gen['shape']['rows']} rows x {gen['shape']['new_tokens']} tokens, {gen['shape']['model']}",
         "torch.multinomial", f"{gen['torch_ms']:,.0f}", f"{gen['ours_ms']:,.0f}", f"{gen['speedup']:.2f}x"],
    ]
    return (caption("benchmarks/results/cpu_parts.json", f"{d['machine']['threads']} threads",
                    f"torch {d['machine']['torch']}", "medians of interleaved rounds")
            + table(["part", "upstream", "upstream ms", "ours ms", "speed-up"], rows, {2, 3, 4}))


def sft_cpu_speed(root: Path) -> str:
    d = load(root, "packed_recipe_tiny_cpu.json")
    reference = "baseline" if "baseline" in d["cases"] else "padded"
    names = {"baseline": f"the recipe at {d.get('baseline_commit')} (padded rows, TRL's head on CPU)",
             "recipe": "the recipe now (one padding-free row of 16, torch's fold)",
             "padded": "the recipe now with its 16 rows padded",
             "padding_free": "padding-free rows", "packed": "packed rows (best-fit decreasing)",
             "packed_no_share": "packed, no shared prompt", "packed_trl_step": "packed, TRL's own step"}
    rows = [[names.get(case, case), num(r.get("tokens_per_s")), num(r.get("train_loss"), 3),
             "1.00" if case == reference else f"{r.get('wall_time_share_same_tokens', 0):.2f}"]
            for case, r in d["cases"].items() if "error" not in r]
    return (caption("benchmarks/results/packed_recipe_tiny_cpu.json", f"{d['steps']} optimizer steps a case",
                    "real tokens/s after warm-up")
            + table(["case", "real tok/s", "train loss", f"time for the same tokens (x {reference})"], rows, {1, 2, 3}))


def grpo_step_cpu(root: Path) -> str:
    d = load(root, "grpo_step_cpu.json")
    rows = [[part, num(d["parts_s"][part], 3), f"{d['parts_share'][part]:.1%}"] for part in d["parts_s"]]
    rows.append(["the step", num(d["seconds_per_step"], 3), f"{d['rollouts_per_s']:.2f} rollouts/s"])
    return (caption("benchmarks/results/grpo_step_cpu.json", f"`{d['command']}`",
                    f"mean of {d['steps']} steps after {d['warmup_steps']} of warm-up")
            + table(["part", "s/step", "share"], rows, {1, 2}))


CPU_TABLES: dict[str, Callable[[Path], str]] = {
    "cpu-parts": cpu_parts, "sft-cpu-speed": sft_cpu_speed, "grpo-step-cpu": grpo_step_cpu,
    "quickstart-floors": quickstart_floors, "model-speed": model_speed, "rewards-speed": rewards_speed,
    "sandbox-overhead": sandbox_overhead, "terminal-data": terminal_data, "parser-cost": parser_cost, "inference": inference,
    "constrained-decoding": constrained_decoding, "terminal-hacks": terminal_hacks,
}
