"""No import circles inside rusty_hf: each dependency sits where it belongs, and no module imports "late"
to dodge one. Every import statement counts, inside functions too (TYPE_CHECKING blocks excepted)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "rusty_hf"
# Old import paths kept for users' code after issue 38's regrouping: alias -> the module that holds the code.
ALIASES = {
    "rusty_hf.configs": "rusty_hf.training.arguments",
    "rusty_hf.model_card": "rusty_hf.hub.model_card",
    "rusty_hf.publishing": "rusty_hf.hub.publishing",
    "rusty_hf.terminal_eval": "rusty_hf.evaluation.terminal",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {n.lineno for stmt in node.body for n in ast.walk(stmt) if hasattr(n, "lineno")}
    return lines


def import_graph() -> dict[str, set[str]]:
    """module -> the rusty_hf modules it imports (``from pkg import sub`` counts as importing ``pkg.sub``)."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_lines(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if node.lineno in skip if hasattr(node, "lineno") else False:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in files and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_late_imports():
    graph = import_graph()
    assert "rusty_hf.trainers.curriculum" in graph["rusty_hf.trainers.callbacks"]
    assert "rusty_hf.sandbox.launch" in graph["rusty_hf.sandbox.capabilities"]


def test_rusty_hf_has_no_import_circles():
    assert cycles(import_graph()) == []


def test_the_sandbox_side_of_the_execution_reward_imports_nothing_of_rusty_hf():
    # Those files run in the sandbox's work dir with the standard library only (no rusty_hf there).
    graph = import_graph()
    sandboxed = [name for name in graph if name.startswith("rusty_hf.rewards.python_exec.sandboxed.")]
    assert sorted(sandboxed) == ["rusty_hf.rewards.python_exec.sandboxed.candidate_server",
                                 "rusty_hf.rewards.python_exec.sandboxed.wire"]  # fmt: skip
    assert all(not graph[name] for name in sandboxed)


def test_no_module_of_rusty_hf_imports_an_old_path():
    # The aliases are for users' code only; inside the package every import names where the code lives.
    graph = import_graph()
    assert {name for name, deps in graph.items() if deps & set(ALIASES) and name not in ALIASES} == set()


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_an_old_path_gives_the_same_objects(alias):
    old, new = importlib.import_module(alias), importlib.import_module(ALIASES[alias])
    assert old.__all__ and all(getattr(old, name) is getattr(new, name) for name in old.__all__)


def test_the_evaluation_package_gives_the_old_modules_names():
    # rusty_hf.evaluation was one module (now evaluation/coding.py); its names still import from the package.
    package, coding = importlib.import_module("rusty_hf.evaluation"), importlib.import_module("rusty_hf.evaluation.coding")
    assert "evaluate_model" in package.__all__ and all(getattr(package, n) is getattr(coding, n) for n in package.__all__)
