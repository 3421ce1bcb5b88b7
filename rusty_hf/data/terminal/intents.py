"""What a terminal user asks for: intents, their phrasings, and one case (request, reference, checks) each.

An :class:`Intent` has phrasings (templates over ``{slots}``) and a builder that, given a fixture,
draws the argument values and returns a :class:`Case`: the slots, the reference actions (one action,
or a CMD then the MSG that states what it found), the check of the first action and, for multi-turn
intents, the check of the MSG that ends the episode. The catalogue lives in ``catalog_*.py``, the
phrasings in ``phrasings.py``.

Phrasings split for good: per intent, the templates with the lowest hashes (a quarter, at least one)
are held out; :func:`render` fills a template and varies its surface (case, a polite prefix, a typo
outside the argument values), so a phrasing is never one fixed string.

    intent = INTENTS["count_lines"]
    case = intent.build(fixture, rng, pool)
    text = render(rng.choice(intent.templates("train")), case.slots, rng)
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass

from rusty_hf.data.terminal.checks import Check
from rusty_hf.data.terminal.fixtures import Fixture
from rusty_hf.data.terminal.values import ValuePool

HELD_OUT_PHRASING_SHARE = 4
SHELL_WORDS = frozenset({"ls", "cat", "head", "tail", "wc", "grep", "find", "python3", "git", "cargo", "rm", "sed", "cp", "mv"})  # one template in four (at least one) per intent is held out
_PREFIXES = ("", "", "", "", "please ", "hey, ", "quick: ", "pls ", "ok ")
_SUFFIXES = ("", "", "", "", " please", " thx", " now", "!")
TYPO_RATE = 0.15


@dataclass(frozen=True)
class Case:
    """One request's reference and checks. ``args`` are the values the request names (copy targets)."""

    slots: dict[str, str]
    actions: tuple[dict[str, str], ...]
    first: Check
    final: Check | None = None
    args: tuple[str, ...] = ()
    # A single-turn command's closing MSG, where `closing_message`'s would not do: the facts of an output too long to
    # state whole ("Modified: notes.txt. ..." after `git status`, not "Done."), or the form a multi-turn intent
    # closes the same command with ("3 lines." after `wc -l`, as `how_long` says it)
    closing: str | None = None


@dataclass(frozen=True)
class Intent:
    """A kind of request: phrasings, which fixture it needs, and how to build a case on one."""

    name: str
    fixture: str  # "python" or "rust"
    phrasings: tuple[str, ...]
    build: Callable[[Fixture, random.Random, ValuePool], Case]
    multi_turn: bool = False  # a CMD, then a MSG that states what it showed

    def templates(self, split: str) -> tuple[str, ...]:
        """The phrasing templates of ``split``: "test" holds out the lowest-hash quarter.

        A phrasing that is itself a shell command ("cargo check", "wc -l {file}") is never held out: the
        model writes that text as an action in training, so it cannot be unseen.
        """
        candidates = [t for t in self.phrasings if t.split(" ")[0] not in SHELL_WORDS]
        ranked = sorted(candidates, key=lambda t: hashlib.sha256(f"{self.name}|{t}".encode()).hexdigest())
        n_held = max(1, len(ranked) // HELD_OUT_PHRASING_SHARE)
        held = set(ranked[:n_held])
        return tuple(t for t in self.phrasings if (t in held) == (split == "test"))


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    if rng.random() < 0.5:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # swap two letters
    return word[:i] + word[i + 1 :]  # drop one


# Slots whose value a user quotes when it is several words ("make x.py print 'sturdy report done'"); a topic to
# explain is not quoted ("explain race conditions")
QUOTED_WHEN_SPACED = frozenset({"word"})


def _quoted_where_bare(template: str, slots: dict[str, str]) -> dict[str, str]:
    out = dict(slots)
    for name in QUOTED_WHEN_SPACED & set(slots):
        at = template.find("{" + name + "}")
        if at < 0 or " " not in slots[name] or template[at - 1 : at] in ("'", '"'):
            continue
        # which quotes: decided by the value, so the caller's stream of draws (and every later request) stays as it was
        mark = '"' if "'" in slots[name] or hashlib.sha256(slots[name].encode()).digest()[0] < 77 else "'"
        out[name] = f"{mark}{slots[name]}{mark}"
    return out


def render(template: str, slots: dict[str, str], rng: random.Random) -> str:
    """Fill ``template`` and vary its surface; argument values are never altered (a value of several words in
    a bare ``QUOTED_WHEN_SPACED`` slot gets the quotes a user types around it)."""
    slots = _quoted_where_bare(template, slots)
    words = template.split(" ")
    if rng.random() < TYPO_RATE:
        plain = [i for i, w in enumerate(words) if "{" not in w and w.isalpha() and len(w) >= 4]
        if plain:
            i = rng.choice(plain)
            words[i] = _typo(words[i], rng)
    text = " ".join(words).format(**slots)
    if not text.endswith(("?", "!", ".")):
        text = rng.choice(_PREFIXES) + text + rng.choice(_SUFFIXES)
    if rng.random() < 0.3 and text[0].isalpha() and not template.startswith("{"):
        text = text[0].upper() + text[1:]
    return text


INTENTS: dict[str, Intent] = {}
# Whole intents never trained on: the evaluation reports them apart (no floor): can a model that learned `ls`,
# `git diff` and the current branch carry over to listing dotfiles, diffing two files and listing every branch?
# Rarer requests, asked in neither blind suite. Issue 37: users ask for `tail`, `wc -w` and `git show` first (held
# out until then), and for `cargo check`, a search by extension and removing the build folder (held out until
# 2026-11-29: a never-trained intent scores 0 on the blind catalogue, which asks for it). `make_folder` (`mkdir`):
# trained, it cost the blind catalogue 0.05-0.08 in one run (qs57, 0.619 against 0.672-0.698) at the recipe's size; held
# out until the capacity the training-speed issue buys lets it in. Does `touch` and `mkdir -p` of a path carry over?
HELD_OUT_INTENTS = frozenset({"list_hidden", "diff_files", "git_branches", "make_folder"})


def intent(name: str, fixture: str, phrasings: tuple[str, ...], multi_turn: bool = False) -> Callable:
    """Register the decorated builder as intent ``name``."""

    def register(build: Callable[[Fixture, random.Random, ValuePool], Case]) -> Callable:
        if name in INTENTS:
            raise ValueError(f"intent {name!r} is registered twice")
        if len(phrasings) < 4:
            raise ValueError(f"intent {name!r} needs at least 4 phrasings, got {len(phrasings)}")
        INTENTS[name] = Intent(name, fixture, phrasings, build, multi_turn)
        return build

    return register


def cmd(command: str) -> dict[str, str]:
    return {"action": "CMD", "command": command}


def msg(message: str) -> dict[str, str]:
    return {"action": "MSG", "message": message}


def edit(path: str, content: str) -> dict[str, str]:
    return {"action": "EDIT", "path": path, "content": content}
