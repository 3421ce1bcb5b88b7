"""Every GPU claim of the README as PASS / FAIL, from the case lines benchmarks/gpu_speed.py wrote.

    python3 benchmarks/gpu_claims.py benchmarks/results/gpu_check/*.jsonl      # what gpu_check.sh runs last

Reads the `.jsonl` files (one JSON line per finished case, so a section killed part-way still counts what
it finished), rebuilds the results, and prints one table: the README's statements about the GPU path
(the compiled step has no graph break; the Triton kernels match the reference; decoding replays one
CUDA graph per batch size and gives the eager tokens) and issue 17's speed, memory and exactness floors
(`gpu_speed.floors`). A claim whose cases did not run reads "not measured"; on CPU (`--device cpu`,
the smoke run) every row reads "not checked on CPU" with its value. Writes the table as JSON too. Exit
status 1 when a claim fails or a case errored.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_speed import EXACTNESS_BOUND, FULL, QUICK, Plan, Result, backends, errors, floors, merge, shape_key  # noqa: E402


def load_cases(paths: list[Path]) -> Result:
    """The results tree gpu_speed builds, from its case lines: train/compile rows by shape, the rest by case."""
    r: Result = {}
    for path in paths:
        for line in filter(None, path.read_text().splitlines()):
            case = json.loads(line)
            section, key = case.pop("section"), case.pop("case")
            if section in ("train", "compile"):
                shape, key = key.split(" ", 1)
                merge(r, {"train": {shape: {key: case}}})
            else:
                merge(r, {section: {key: case}})
    return r


def _get(r: Result, *path: str) -> object:
    for key in path:
        r = r.get(key) if isinstance(r, dict) else None
    return r


def readme_claims(r: Result, device: str, plan: Plan) -> list[tuple[str, object, bool | None]]:
    """(claim, value, holds) for what the README says of the GPU path; holds None = not measured."""
    backend = backends(device)[0]
    compiled = [_get(r, "train", shape_key(s), f"ours[{backend}]/compiled") for s in plan.train_shapes[:plan.compiled_shapes]]
    compile_errors = [c.get("error") for c in compiled if isinstance(c, dict) and "error" in c]
    ran = [c for c in compiled if isinstance(c, dict) and "tokens_per_s" in c]
    graphs = _get(r, "decode", f"ours[{backend}]", "graphs") or {}
    exact = _get(r, "exactness", "decode_graphs_vs_eager") or {}
    triton = _get(r, "exactness", "triton_vs_torch", "max_abs_diff")
    if not graphs:
        replayed = None
    elif device == "cuda":  # one capture per batch size, then replays
        replayed = graphs["captures"] == len(plan.decode_batches) and graphs["replays"] > 0
    else:  # on CPU (eager mode) the static-buffer step runs without capture
        replayed = graphs["static_steps"] > 0
    return [
        ("torch.compile(model) traces a whole training step with fullgraph=True",
         compile_errors[0] if compile_errors else f"{len(ran)} shapes compiled",
         None if not compiled or (not ran and not compile_errors) else not compile_errors),
        ("the Triton WKV kernels match the reference (max |dlogit|, fp32)", triton,
         None if triton is None else triton <= EXACTNESS_BOUND),
        ("each decoding step after the prompt is a CUDA-graph replay, one capture per batch size",
         graphs or _get(r, "decode", f"ours[{backend}]", "error"), replayed),
        ("decoding through the graphs gives the eager tokens and scores (left-padded batch)",
         exact.get("max_abs_diff", exact.get("error")),
         None if "max_abs_diff" not in exact else exact["same_tokens"] and exact["max_abs_diff"] <= EXACTNESS_BOUND),
    ]


def table(r: Result, device: str, plan: Plan) -> list[Result]:
    rows = [{"claim": claim, "value": value, "holds": holds} for claim, value, holds in readme_claims(r, device, plan)]
    for floor in floors(r, device, plan):
        holds = None if floor["value"] is None else floor["value"] >= floor["bound"] if floor["op"] == ">=" \
            else floor["value"] <= floor["bound"]
        rows.append({"claim": f"{floor['floor']} {floor['op']} {floor['bound']:g}", "value": floor["value"], "holds": holds})
    for row in rows:
        row["status"] = ("not measured" if row["holds"] is None else "not checked on CPU" if device != "cuda"
                         else "PASS" if row["holds"] else "FAIL")
    return rows


def markdown(rows: list[Result]) -> list[str]:
    """The claims as Markdown table lines (what main prints, and what docs/benchmarks.md renders)."""
    lines = ["| claim | value | status |", "|---|---|---|"]
    for row in rows:
        value = f"{row['value']:.3g}" if isinstance(row["value"], float) else row["value"]
        cells = [row["claim"], "-" if value is None else str(value), row["status"]]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")  # a | in a cell ends it
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jsonl", nargs="+", type=Path, help="gpu_speed.py's case lines (.jsonl), any sections")
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    parser.add_argument("--quick", action="store_true", help="the runs used --quick (its shapes and batches)")
    parser.add_argument("--output", type=Path, default=None, help="the table as JSON")
    args = parser.parse_args(argv)
    r, plan = load_cases(args.jsonl), QUICK if args.quick else FULL
    rows = table(r, args.device, plan)
    print("\n### GPU claims of the README\n")
    print("\n".join(markdown(rows)))
    failed = errors(r)
    for error in failed:
        print(f"error: {error}")
    if args.output:
        args.output.write_text(json.dumps({"device": args.device, "claims": rows, "errors": failed}, indent=2, default=str) + "\n")
    return int(failed != [] or any(row["status"] == "FAIL" for row in rows))


if __name__ == "__main__":
    sys.exit(main())
