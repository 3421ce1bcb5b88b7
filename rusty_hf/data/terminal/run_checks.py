"""Checks of running things, shared by a single-turn intent and the multi-turn one that asks the same:
the script's line, the test run, what changed since the last commit, the last commit.

Each asks for its fact and nothing else of the work dir beside it (``excess.py``): the script's line
but not its source, the test summary but no line of a file the run does not read, the changed files
but no unchanged one, the last commit but no older one.
"""

from __future__ import annotations

from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.excess import other_lines, other_names
from rusty_hf.data.terminal.fixtures import Fixture


def script_printed(fx: Fixture, args: tuple[str, ...] = ()) -> str:
    """What the fixture's script prints when run with ``args``: its line, then the arguments."""
    return " ".join((fx.facts["script_output"], *args))


def script_check(fx: Fixture, args: tuple[str, ...] = ()) -> Check:
    """The script's line (run with ``args``: then those), and no line of any file (its source holds that line too)."""
    out = script_printed(fx, args)
    return Check("output", all_of=((out,),), none_of=other_lines(fx, allowed=(out,)))


def test_summary(fx: Fixture) -> Check:
    """The test run's summary and the failing test, and no line of a file the run does not read."""
    n = len(fx.facts["tests"])
    keep = {fx.facts["test_file"], *fx.facts["modules"].values()}
    return Check("output", all_of=((f"Ran {n} tests", f"{n - 1} passed"), (fx.facts["failing_test"],)),
                 none_of=other_lines(fx, keep=keep))  # fmt: skip


def committed(fx: Fixture) -> set[str]:
    return {path for _, changes in fx.commits for path in changes}


def changed_files(fx: Fixture) -> list[str]:
    """The files `git status` names: modified, deleted (a work dir after a session's `rm`), untracked."""
    return fx.facts["modified"] + fx.facts.get("deleted", []) + fx.facts["untracked"]


def status_check(fx: Fixture) -> Check:
    """What changed since the last commit: those files named, no unchanged one, no content."""
    changed = changed_files(fx)
    return Check("output", all_of=tuple((n,) for n in changed), none_of=other_lines(fx),
                 no_names=other_names(fx, changed, among=committed(fx)))  # fmt: skip


def script_stated(fx: Fixture, args: tuple[str, ...] = ()) -> str:
    """What the fixture's script printed, as a closing MSG states it (`script_prints`, `run_script`, `run_script_args`)."""
    return f"It prints: {script_printed(fx, args)}"


def changes_stated(fx: Fixture) -> str:
    """What changed since the last commit, as a closing MSG states it (`what_changed`, `git_status`)."""
    kinds = (("Modified", fx.facts["modified"]), ("Deleted", fx.facts.get("deleted", [])),
             ("New, untracked", fx.facts["untracked"]))  # fmt: skip
    return " ".join(f"{kind}: {', '.join(paths)}." for kind, paths in kinds if paths) or "Nothing changed since the last commit."


def last_commit_excess(fx: Fixture) -> tuple[str, ...]:
    """Beside the last commit: the older subjects, and the lines of files it did not touch (its patch may show)."""
    return (*fx.facts["subjects"][:-1], *other_lines(fx, keep=set(fx.facts["commit_files"][-1])))
