"""recipes/tiny/floors.py: the quickstart's floors, PASS/FAIL from its reports."""

import importlib.util
import json
from pathlib import Path

FLOORS = Path(__file__).resolve().parents[1] / "recipes" / "tiny" / "floors.py"
spec = importlib.util.spec_from_file_location("rusty_floors", FLOORS)
floors = importlib.util.module_from_spec(spec)
spec.loader.exec_module(floors)


def _stat(mean, stderr=0.02, n=100):
    return {"mean": mean, "stderr": stderr, "n": n}


def _terminal(seen, new, episode, change=None):
    block = lambda first, ep: {"first_action_success": _stat(first), "episode_success": _stat(ep),  # noqa: E731
                               "protocol_validity": _stat(1.0)}
    report = {"parts": {"seen_values": block(seen, episode), "new_values": block(new, episode), "new_intents": block(0, None)},
              "overall": block((seen + new) / 2, episode)}  # fmt: skip
    if change is not None:
        report["comparison"] = {"overall (trained intents)": {"first_action_success": _stat(change, 0.02)}}
    return report


def test_every_floor_is_judged():
    gain = {"gain": 0.12, "gain_in_stderrs": 4.0}
    rows = floors.floors(_terminal(0.8, 0.45, 0.5, change=-0.03), gain, 800, e2e_status=0)
    assert [passed for *_, passed in rows] == [True] * len(rows)
    rows = floors.floors(_terminal(0.7, 0.3, 0.3, change=-0.05), {"gain": 0.12, "gain_in_stderrs": 1.5}, 950, e2e_status=1)
    assert [passed for *_, passed in rows] == [False, False, False, True, False, False, False, False]


def test_what_was_not_measured_is_not_a_pass(tmp_path, capsys):
    folder = tmp_path / "tiny-grpo"
    folder.mkdir()
    (folder / "terminal_eval.json").write_text(json.dumps(_terminal(0.8, 0.45, 0.5)))
    assert floors.main(["--out_dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "n/a   terminal success after GRPO" in out and "n/a   coding reward gain" in out
    records = json.loads((folder / "floors.json").read_text())
    assert records[0]["passed"] is True
    assert records[0]["stderr"] == 0.02 and records[0]["n"] == 100  # what the rendered floors table shows


def test_a_missing_report_is_one_line_naming_the_fix(tmp_path, capsys):
    assert floors.main(["--out_dir", str(tmp_path)]) == 2
    assert "Fix:" in capsys.readouterr().err
