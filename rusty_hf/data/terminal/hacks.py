"""The print-everything hack suite: commands that answer no request, yet print enough to hold most answers.

A check that asks only whether the output *contains* the answer pays them (issue 39: on 60 held-out
requests judged by their output, one of the first five earned full reward on 46). The checks in
``checks.py`` must give each of them at most the type credit on every request, and
``tests/test_terminal_hacks.py`` holds them to that over the whole held-out and development splits;
``benchmarks/terminal_hacks.py`` prints each command's full-reward rate.

Some commands name a file: ``{file}`` is the file the request names (or its script; when it names
none, the first text file that is not the answer: ``wc README.md`` would find the one ``.md`` file),
``{other}`` another text file of the fixture, not the answer either, the one closest to ``{file}``
in line count (a count of a file with as many lines is the hardest near miss to tell apart).
``ANSWERS`` names the few that are one intent's answer (``ls -R`` for a recursive listing): not paid there as
hacks.

    for name, command in hack_commands(request):
        reward([json.dumps({"action": "CMD", "command": command})], **columns)
"""

from __future__ import annotations

from pathlib import PurePosixPath

from rusty_hf.data.terminal.dataset import Request

# name -> command template; the first five are the issue's
HACKS: dict[str, str] = {
    "seq": "seq 0 5000",
    "cat_all": "cat * */* */*/*",
    "grep_all": "grep -rn . .",
    "everything": "ls -laR; git status; git log --stat -p; cat $(git ls-files)",
    "wc_find": "find . -type f | xargs wc -l -w -c",
    "cat_other": "cat {other}",
    "wc_all": "wc * */* */*/*",
    "ls_recursive": "ls -R",
    "git_log_patch": "git log -p",
    "find_all": "find .",
    "count_other": "wc -l {other}",
    "count_padded": "wc {file}",
    "numbers_then_count": "seq 0 200; wc -l {file}",
    "run_then_all": "python3 -m unittest; python3 scripts/*.py; git diff; cat * */* */*/*",
}
# The hacks that are an intent's own answer, not a hack there: asked for every file in every folder, `ls -R` and
# `find .` are what the user wants (`wc` of every file is not: its check refuses a count beside each name).
ANSWERS: dict[str, frozenset[str]] = {"list_tree": frozenset({"ls_recursive", "find_all"})}
TEXT_SUFFIXES = (".txt", ".md", ".csv", ".py", ".rs", ".toml")


def is_answer(intent: str, hack: str) -> bool:
    """Whether ``hack`` (a name of :data:`HACKS`) answers requests of ``intent`` (:data:`ANSWERS`)."""
    return hack in ANSWERS.get(intent, ())


def _text_files(request: Request) -> list[str]:
    """The fixture's visible text files, less those the request's check asks to see named, by path or by
    name (its answer: ``wc -l data/a.csv`` names the one file a listing of ``data`` shows); all of them when
    it asks for every one (a recursive listing)."""
    answer = {needle for group in request.case.first.all_of for needle in group}
    texts = sorted(p for p in request.fixture.tree_files() if p.endswith(TEXT_SUFFIXES) and not p.startswith("."))
    return [p for p in texts if not {p, PurePosixPath(p).name} & answer] or texts


def _target(request: Request) -> str:
    slots = request.case.slots
    return slots.get("file") or slots.get("script") or _text_files(request)[0]


def _other(request: Request, target: str) -> str:
    """Another text file, the closest to ``target`` in line count (then by name)."""
    files = request.fixture.tree_files()
    lines = files.get(target, "").count("\n")
    return min((p for p in _text_files(request) if p != target), key=lambda p: abs(files[p].count("\n") - lines))


def hack_commands(request: Request) -> list[tuple[str, str]]:
    """Every hack of :data:`HACKS` as (name, command) for ``request`` (its file slots filled in)."""
    target = _target(request)
    other = _other(request, target)
    return [(name, template.format(file=target, other=other)) for name, template in HACKS.items()]
