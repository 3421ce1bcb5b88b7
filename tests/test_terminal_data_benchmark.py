"""benchmarks/terminal_data.py: the old paths it times beside the new ones give what the new ones give."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from terminal_data import compare_builds, compare_runs  # noqa: E402


def test_the_old_and_new_runs_show_the_same_outputs_and_fixtures_get_the_same_hashes(tmp_path):
    runs = compare_runs(sample=4, rounds=1, cache=tmp_path)
    assert runs["pairs"] == 4 and runs["outputs_that_differ"] == 0
    assert runs["trial"]["median_ms"] > 0 and runs["copy + run"]["median_ms"] > 0
    builds = compare_builds(count=2, rounds=1)
    assert builds["fixtures"] == 2 and builds["hashes_that_differ"] == 0
