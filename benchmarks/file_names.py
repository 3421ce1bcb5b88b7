"""Benchmark: does the first action reach the file the user named, whatever the file is called? (issue 37)

The catalogue's fixtures name files from word pools in a few shapes (`verb_noun.py` scripts, `notes.txt`); users
name theirs `app.py`, `main.py`, `todo.txt`, `config.json`. Each request here is played as ``rusty-terminal``
plays it (`AgentSession`: persona, constrained decoding, copy bias; one action) in a small git work dir holding
the named file, and judged by execution: a run prints the script's line, a shown file's lines come out, a count
states the file's number, a deletion leaves the other files, an append, a copy, a first line.

The requests and names were written for this benchmark, not drawn from `phrasings.py`, the blind suite or the
conversations. They found the shapes the fixtures lacked, so they are a development measure: a change they chose
is judged on the blind suite, and this says what users with such names meet.

    python3 benchmarks/file_names.py --model /tmp/qs69/tiny-grpo --model /tmp/qs68/tiny-grpo
    # writes benchmarks/results/file_names.json and prints a table per model
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from transformers import AutoModelForCausalLM, AutoTokenizer

from rusty_hf.agent.session import AgentSession
from rusty_hf.agent.workspace import Workspace
from rusty_hf.tokenizer import RUSTY_SYSTEM_PROMPT

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results" / "file_names.json"
SCRIPT_LINE = "zebra output ok"
TEXT = "first entry here\nsecond entry here\nthird entry here\n"
SCRIPTS = ("app.py", "main.py", "greet.py", "hello.py", "report.py", "tidy_words.py", "fetch_lamps.py", "scripts/build.py",
           "tools/clean_cache.py", "run.py", "cli.py", "bin/deploy.py", "server.py", "stats.py", "make_report.py", "demo.py")
TEXTS = ("todo.txt", "log.txt", "notes.md", "data.csv", "config.json", "settings.yaml", "run.sh", "lib.rs", "words.txt",
         "shopping_list.txt", "docs/guide.md", "data/users.csv")
# the names in the shapes the fixtures drew before 2026-11-29 (a `verb_noun` stem, or inside a folder)
FIXTURE_SHAPED = frozenset({"fetch_lamps.py", "make_report.py", "scripts/build.py", "tools/clean_cache.py", "bin/deploy.py",
                            "docs/guide.md", "data/users.csv"})


def _ran(w: Path, out: str, f: str) -> bool:
    return SCRIPT_LINE in out


def _shown(w: Path, out: str, f: str) -> bool:
    return (w / f).exists() and all(line in out for line in (w / f).read_text().splitlines())


def _counted(w: Path, out: str, f: str) -> bool:
    return "3" in out.split() or f"3 {f}" in out


def _deleted(w: Path, out: str, f: str) -> bool:
    return not (w / f).exists() and (w / "keep.txt").exists()


def _first(w: Path, out: str, f: str) -> bool:
    return "first entry here" in out and "second entry here" not in out


def _appended(w: Path, out: str, f: str) -> bool:
    return (w / f).exists() and (w / f).read_text() == TEXT + "zzz top\n"


def _copied(w: Path, out: str, f: str) -> bool:
    return (w / "backup.txt").exists() and (w / "backup.txt").read_text() == TEXT and (w / f).exists()


# (kind, request template, the names it is asked about, executed check)
REQUESTS = (
    ("run", "run {f}", SCRIPTS, _ran), ("run", "execute {f}", SCRIPTS, _ran), ("run", "python3 {f}", SCRIPTS, _ran),
    ("run", "can you run {f} for me?", SCRIPTS, _ran), ("show", "show me {f}", SCRIPTS + TEXTS, _shown),
    ("show", "what's in {f}?", SCRIPTS, _shown), ("count", "how many lines in {f}?", TEXTS, _counted),
    ("delete", "delete {f}", TEXTS, _deleted), ("first", "first line of {f}", TEXTS, _first),
    ("append", "append the line 'zzz top' to {f}", TEXTS, _appended), ("copy", "copy {f} to backup.txt", TEXTS, _copied),
)  # fmt: skip


def _workdir(root: Path, name: str) -> Path:
    w = root / "w"
    files = {name: f"print({SCRIPT_LINE!r})\n" if name in SCRIPTS else TEXT, "keep.txt": "keep me\n", "README.md": "# demo\n"}
    for path, content in files.items():
        (w / path).parent.mkdir(parents=True, exist_ok=True)
        (w / path).write_text(content)
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    subprocess.run("git init -q && git add -A && git commit -qm init", shell=True, cwd=w, env=env, check=True)
    return w


def evaluate(model_dir: str) -> dict:
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, trust_remote_code=True)
    per_kind: dict[str, list[int]] = {}
    by_shape = {"verb_noun or in a folder": [0, 0], "other names": [0, 0]}
    for kind, template, names, check in REQUESTS:
        for name in names:
            # a fresh work dir per request: the ones that change it (delete, append, copy) run in any order
            with tempfile.TemporaryDirectory() as tmp:
                w = _workdir(Path(tmp), name)
                session = AgentSession(model, tokenizer, Workspace(w), system_prompt=RUSTY_SYSTEM_PROMPT, max_steps=1)
                step = next(iter(session.respond(template.format(f=name))))
                ok = bool(check(w, step.result or "", name))
            per_kind.setdefault(kind, [0, 0])
            per_kind[kind][0] += ok
            per_kind[kind][1] += 1
            shape = "verb_noun or in a folder" if name in FIXTURE_SHAPED else "other names"
            by_shape[shape][0] += ok
            by_shape[shape][1] += 1
    done = sum(v[0] for v in per_kind.values())
    total = sum(v[1] for v in per_kind.values())
    return {"done": done, "total": total, "rate": round(done / total, 4), "per_kind": per_kind, "by_name_shape": by_shape}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", action="append", required=True, help="a model folder (repeatable)")
    parser.add_argument("--label", action="append", help="a label per --model (default: the folder)")
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args()
    labels = args.label or args.model
    results = {label: {"model": model, **evaluate(model)} for label, model in zip(labels, args.model)}
    kinds = list(next(iter(results.values()))["per_kind"])
    print("| model | all | " + " | ".join(kinds) + " | names of the fixtures' shapes | other names |")
    print("|---|---:|" + "---:|" * (len(kinds) + 2))
    for label, r in results.items():
        cells = [f"{r['per_kind'][k][0]}/{r['per_kind'][k][1]}" for k in kinds]
        shapes = [f"{v[0]}/{v[1]}" for v in r["by_name_shape"].values()]
        print(f"| {label} | {r['done']}/{r['total']} | " + " | ".join(cells + shapes) + " |")
    Path(args.output).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
