"""Write the result tables of README.md and docs/ from the JSON they report, or check that they agree.

    python3 benchmarks/render_tables.py            # rewrite every table between its markers
    python3 benchmarks/render_tables.py --check    # exit 1, naming each table that differs from its JSON

A table lives in a Markdown file between ``<!-- table:NAME -->`` and ``<!-- /table:NAME -->``; NAME picks
its renderer (``result_tables.CPU_TABLES``, ``gpu_tables.GPU_TABLES``), which reads only its JSON under
benchmarks/results/. After a benchmark or a quickstart writes new JSON, run this and commit both:
``tests/test_render_tables.py`` fails while a table and its JSON disagree.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gpu_tables import GPU_TABLES  # noqa: E402
from result_tables import CPU_TABLES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/*.md", "recipes/r2/README.md")
TABLES: dict[str, Callable[[Path], str]] = {**CPU_TABLES, **GPU_TABLES}
MARKED = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.DOTALL)


def documents(root: Path) -> list[Path]:
    return sorted({path for pattern in DOCS for path in root.glob(pattern)})


def render(text: str, root: Path, cache: dict[str, str] | None = None) -> str:
    """``text`` with every marked table replaced by what its renderer makes of the JSON under ``root``."""
    cache = {} if cache is None else cache

    def fill(match: re.Match) -> str:
        name = match["name"]
        if name not in TABLES:
            raise KeyError(f"<!-- table:{name} --> names no table; known: {', '.join(sorted(TABLES))}")
        if name not in cache:
            cache[name] = TABLES[name](root).rstrip("\n") + "\n"
        return match[1] + cache[name] + match[4]

    return MARKED.sub(fill, text)


def stale(root: Path) -> dict[Path, list[str]]:
    """Each document whose tables differ from their JSON, with the names of those tables."""
    cache: dict[str, str] = {}
    found = {}
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        fresh = {m["name"]: m["body"] for m in MARKED.finditer(render(text, root, cache))}
        names = [m["name"] for m in MARKED.finditer(text) if m["body"] != fresh[m["name"]]]
        if names:
            found[path] = names
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a table differs from its JSON")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this checkout)")
    args = parser.parse_args(argv)
    try:
        differ = stale(args.root)
    except (OSError, ValueError, KeyError) as exc:
        print(f"render_tables: {exc}", file=sys.stderr)
        return 2
    for path, names in differ.items():
        if args.check:
            print(f"{path.relative_to(args.root)}: {', '.join(names)} differ from their JSON "
                  "(fix: python3 benchmarks/render_tables.py, then commit)")
        else:
            path.write_text(render(path.read_text(encoding="utf-8"), args.root), encoding="utf-8")
            print(f"rewrote {path.relative_to(args.root)}: {', '.join(names)}")
    return int(args.check and bool(differ))


if __name__ == "__main__":
    sys.exit(main())
