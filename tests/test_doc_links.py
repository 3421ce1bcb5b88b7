"""The documentation's internal links resolve: relative paths to files that exist, anchors to headings that exist.

Covers README.md, docs/*.md and the READMEs beside the code. A link is ``[text](target)``; http(s) and mailto
links are not followed (no network). An anchor is checked against the target's headings, slugged the way
GitHub slugs them. Repository paths named in backticks (``recipes/tiny/sft.yaml``) must exist too, so a moved
file takes its documentation with it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_snippets import DOCS as SNIPPET_DOCS

ROOT = Path(__file__).resolve().parents[1]
DOCS = [*SNIPPET_DOCS, ROOT / "benchmarks" / "README.md", ROOT / "tasks" / "README.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
# A backticked path into the repository: a top-level folder, then path characters only (no placeholders).
REPO_PATH = re.compile(r"`((?:rusty_hf|recipes|tests|benchmarks|docs|space|tasks|\.ci)/[\w./-]*)`")
MADE_BY_RUNS = ("benchmarks/results/gpu_check/",)  # folders a documented command creates


def prose(text: str) -> str:
    """The text without its fenced code blocks (a `#` there is a comment, not a heading or a link)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(path.read_text(encoding="utf-8")), flags=re.MULTILINE):
        base, n = slug(heading), 0
        while (name := base if n == 0 else f"{base}-{n}") in found:  # GitHub numbers repeated headings
            n += 1
        found.add(name)
    return found


def test_slugs_follow_github():
    assert slug("2026-11-22: the sandbox's overhead, 1.25x") == "2026-11-22-the-sandboxs-overhead-125x"
    assert slug("What TinyRWKV does that `RwkvForCausalLM` does not") == "what-tinyrwkv-does-that-rwkvforcausallm-does-not"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_anchors_resolve(doc):
    broken = []
    for target in LINK.findall(prose(doc.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue
        file_part, _, anchor = target.partition("#")
        path = (doc.parent / file_part).resolve() if file_part else doc
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading with that anchor in {path.relative_to(ROOT)}")
    assert not broken, broken


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_backticked_repository_paths_exist(doc):
    named = set(REPO_PATH.findall(doc.read_text(encoding="utf-8")))
    missing = sorted(p for p in named if not (ROOT / p).exists() and not p.startswith(MADE_BY_RUNS))
    assert not missing, missing
