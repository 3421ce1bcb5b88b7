"""The documentation's result tables are the JSON's numbers: benchmarks/render_tables.py and its renderers.

The repository's own check (every marked table in README.md and docs/ equals what its JSON renders to) plus
the properties that make it worth having: a number changed in the JSON, or typed into a table, is caught;
rendering puts it back; an unknown table name is one clear error; the floors.json that
recipes/tiny/floors.py writes renders as it is.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import render_tables  # noqa: E402

FLOORS_JSON = "benchmarks/results/quickstart_floors.json"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A README with the quickstart's floors table, rendered from a copy of its JSON."""
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    shutil.copy(ROOT / FLOORS_JSON, tmp_path / FLOORS_JSON)
    empty = "# Rusty\n\n<!-- table:quickstart-floors -->\n<!-- /table:quickstart-floors -->\n"
    (tmp_path / "README.md").write_text(render_tables.render(empty, tmp_path), encoding="utf-8")
    return tmp_path


def test_every_table_in_the_docs_agrees_with_its_json():
    assert render_tables.stale(ROOT) == {}, "run: python3 benchmarks/render_tables.py"


def test_the_docs_use_every_table_and_no_unknown_one():
    used = {m["name"] for doc in render_tables.documents(ROOT) for m in render_tables.MARKED.finditer(doc.read_text())}
    assert used == set(render_tables.TABLES)


def test_a_number_changed_in_the_json_is_caught_and_rendered(repo):
    data = json.loads((repo / FLOORS_JSON).read_text())
    data["floors"][0]["value"] = 0.5
    (repo / FLOORS_JSON).write_text(json.dumps(data))
    assert render_tables.stale(repo) == {repo / "README.md": ["quickstart-floors"]}
    assert render_tables.main(["--root", str(repo)]) == 0
    first = data["floors"][0]
    assert f"| 0.500 ± {first['stderr']:.3f} (n={first['n']}) |" in (repo / "README.md").read_text()
    assert render_tables.stale(repo) == {}


def test_a_number_typed_into_a_table_is_caught(repo):
    readme = repo / "README.md"
    first = json.loads((repo / FLOORS_JSON).read_text())["floors"][0]
    shown = f"{first['value']:.3f} ± {first['stderr']:.3f}"
    assert shown in readme.read_text()
    readme.write_text(readme.read_text().replace(shown, f"{first['value'] + 0.01:.3f} ± {first['stderr']:.3f}"))
    assert render_tables.main(["--check", "--root", str(repo)]) == 1


def test_an_unknown_table_name_is_one_clear_error(repo, capsys):
    (repo / "README.md").write_text("<!-- table:no-such -->\n<!-- /table:no-such -->\n")
    assert render_tables.main(["--check", "--root", str(repo)]) == 2
    assert "table:no-such" in capsys.readouterr().err


def test_the_floors_json_the_quickstart_writes_renders_as_it_is(repo):
    spec = importlib.util.spec_from_file_location("floors", ROOT / "recipes" / "tiny" / "floors.py")
    floors = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floors)
    part = {"first_action_success": {"mean": 0.8}, "episode_success": {"mean": 0.5}, "protocol_validity": {"mean": 1.0}}
    terminal = {"parts": {"seen_values": part, "new_values": part}, "overall": part}
    report = [{"floor": w, "value": v, "bound": b, "passed": p}
              for w, v, b, p in floors.floors(terminal, {"gain": 0.2, "gain_in_stderrs": 3.0}, 700.0, 0)]
    (repo / FLOORS_JSON).write_text(json.dumps(report))  # floors.json as written: a bare list, no run
    render_tables.main(["--root", str(repo)])
    text = (repo / "README.md").read_text()
    assert "| first-action success, held-out phrasings on seen values | 0.800 | >= 0.75 | PASS |" in text
    assert "| quickstart wall time (s) | 700 | <= 900 | PASS |" in text
