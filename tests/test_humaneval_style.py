"""Tasks written the HumanEval way, through the real execution reward: a prompt that is code (imports,
constants, helper functions, then the signature and docstring of the function to finish), a canonical
body, and a ``check(candidate)`` with plain asserts. The test file is what such a dataset turns into:
``from solution import *``, the check, and one ``test_*`` that calls it with the entry point.

A correct solution (the prompt with its body, as a complete ``solution.py``) earns full credit,
0.3 parse + 0.7 tests; a wrong one earns the parse credit only. The problems are written here.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from rusty_hf.rewards.python_exec.execution import execution_reward

FULL_CREDIT, PARSE_CREDIT = 1.0, 0.3


@dataclass(frozen=True)
class Problem:
    prompt: str  # code: what the model is given to complete
    canonical: str  # the body that completes it
    wrong: str  # a plausible body with a bug
    check: str  # the dataset's test: def check(candidate), plain asserts
    entry_point: str

    def solution(self, body: str) -> str:
        return textwrap.dedent(self.prompt).lstrip() + textwrap.indent(textwrap.dedent(body), "    ")

    @property
    def tests(self) -> str:
        return f"from solution import *\n\n{textwrap.dedent(self.check).strip()}\n\n\ndef test_check():\n    check({self.entry_point})\n"


PROBLEMS = {
    # the solution calls a helper and a constant the prompt defines
    "count_vowels": Problem(
        prompt='''
            VOWELS = "aeiou"


            def is_vowel(letter: str) -> bool:
                """Whether one letter is a vowel, in either case."""
                return letter.lower() in VOWELS


            def count_vowels(text: str) -> int:
                """How many letters of text are vowels.
                >>> count_vowels("Banana")
                3
                """
        ''',
        canonical="return sum(1 for letter in text if is_vowel(letter))\n",
        wrong="return sum(1 for letter in text if letter in VOWELS)\n",  # misses capitals
        check="""
            METADATA = {"source": "rusty_hf", "shape": "humaneval"}


            def check(candidate):
                assert candidate("Banana") == 3
                assert candidate("EVERY Apple") == 4
                assert candidate("") == 0
                assert candidate("rhythm") == 0
        """,
        entry_point="count_vowels",
    ),
    "digital_root": Problem(
        prompt='''
            def digit_sum(n: int) -> int:
                """The sum of the decimal digits of n >= 0."""
                return sum(int(d) for d in str(n))


            def digital_root(n: int) -> int:
                """Sum the digits of n >= 0 again and again until one digit is left.
                >>> digital_root(38)
                2
                """
        ''',
        canonical="while n >= 10:\n    n = digit_sum(n)\nreturn n\n",
        wrong="return digit_sum(n)\n",  # one round only
        check="""
            def check(candidate):
                assert candidate(0) == 0
                assert candidate(7) == 7
                assert candidate(38) == 2
                assert candidate(99999999999) == 9
        """,
        entry_point="digital_root",
    ),
    # the check calls a helper the prompt defines (star-imported from the solution)
    "unzigzag": Problem(
        prompt='''
            def zigzag(text: str) -> str:
                """The characters at even positions, then those at odd positions."""
                return text[::2] + text[1::2]


            def unzigzag(text: str) -> str:
                """Undo zigzag: unzigzag(zigzag(s)) == s.
                >>> unzigzag("hloel")
                'hello'
                """
        ''',
        canonical="""
            half = (len(text) + 1) // 2
            evens, odds = text[:half], text[half:]
            return "".join(evens[i // 2] if i % 2 == 0 else odds[i // 2] for i in range(len(text)))
        """,
        wrong="half = len(text) // 2\nreturn \"\".join(a + b for a, b in zip(text[:half], text[half:]))\n",
        check="""
            def check(candidate):
                assert candidate("hloel") == "hello"
                for text in ["", "a", "ab", "abc", "zigzag!", "the quick brown fox"]:
                    assert candidate(zigzag(text)) == text
        """,
        entry_point="unzigzag",
    ),
    # the test reads the solution as a module: `import solution`, its attributes
    "to_roman": Problem(
        prompt='''
            NUMERALS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


            def to_roman(n: int) -> str:
                """n (1 to 3999) in Roman numerals, using the table NUMERALS.
                >>> to_roman(14)
                'XIV'
                """
        ''',
        canonical="""
            out = []
            for value, letters in NUMERALS:
                count, n = divmod(n, value)
                out.append(letters * count)
            return "".join(out)
        """,
        wrong="""
            out = []
            for value, letters in NUMERALS[::2]:
                count, n = divmod(n, value)
                out.append(letters * count)
            return "".join(out)
        """,  # no subtractive pairs
        check="""
            import solution


            def check(candidate):
                assert len(solution.NUMERALS) == 13
                assert candidate(3) == "III"
                assert candidate(14) == "XIV"
                assert candidate(1994) == "MCMXCIV"
                assert candidate(3999) == "MMMCMXCIX"
        """,
        entry_point="solution.to_roman",
    ),
    "running_max": Problem(
        prompt='''
            from typing import List


            def running_max(numbers: List[int]) -> List[int]:
                """The largest number seen so far, at each position.
                >>> running_max([1, 3, 2, 5])
                [1, 3, 3, 5]
                """
        ''',
        canonical="""
            out = []
            for number in numbers:
                out.append(number if not out else max(out[-1], number))
            return out
        """,
        wrong="return sorted(numbers)\n",
        check="""
            def check(candidate):
                assert candidate([]) == []
                assert candidate([1, 3, 2, 5]) == [1, 3, 3, 5]
                assert candidate([-4, -7, -1]) == [-4, -4, -1]
                assert candidate([5, 4, 3]) == [5, 5, 5]
        """,
        entry_point="running_max",
    ),
    # floats judged with a tolerance, as HumanEval's checks do
    "harmonic_mean": Problem(
        prompt='''
            import math


            def harmonic_mean(values: list) -> float:
                """The number of values divided by the sum of their reciprocals (all values > 0).
                >>> harmonic_mean([1.0, 4.0, 4.0])
                2.0
                """
        ''',
        canonical="return len(values) / math.fsum(1 / v for v in values)\n",
        wrong="return math.fsum(values) / len(values)\n",  # the arithmetic mean
        check="""
            import math


            def check(candidate):
                assert abs(candidate([1.0, 4.0, 4.0]) - 2.0) < 1e-9
                assert abs(candidate([2.0, 3.0]) - 2.4) < 1e-9
                assert math.isclose(candidate([5.0]), 5.0)
        """,
        entry_point="harmonic_mean",
    ),
    "is_balanced": Problem(
        prompt='''
            PAIRS = {")": "(", "]": "[", "}": "{"}


            def is_balanced(text: str) -> bool:
                """Whether the brackets ()[]{} in text open and close in order; other characters are ignored.
                >>> is_balanced("f(a[1]) {}")
                True
                """
        ''',
        canonical="""
            stack = []
            for ch in text:
                if ch in PAIRS.values():
                    stack.append(ch)
                elif ch in PAIRS:
                    if not stack or stack.pop() != PAIRS[ch]:
                        return False
            return not stack
        """,
        wrong="return sum(ch in PAIRS.values() for ch in text) == sum(ch in PAIRS for ch in text)\n",
        check="""
            def check(candidate):
                assert candidate("f(a[1]) {}") is True
                assert candidate("") is True
                assert candidate("(]") is False
                assert candidate(")(") is False
                assert candidate("((") is False
        """,
        entry_point="is_balanced",
    ),
    "rle_decode": Problem(
        prompt='''
            def rle_encode(text: str) -> list:
                """Runs of one character as [character, length] pairs."""
                pairs = []
                for ch in text:
                    if pairs and pairs[-1][0] == ch:
                        pairs[-1][1] += 1
                    else:
                        pairs.append([ch, 1])
                return pairs


            def rle_decode(pairs: list) -> str:
                """The text rle_encode was given.
                >>> rle_decode([["a", 3], ["b", 1]])
                'aaab'
                """
        ''',
        canonical='return "".join(ch * count for ch, count in pairs)\n',
        wrong='return "".join(ch for ch, count in pairs)\n',
        check="""
            def check(candidate):
                assert candidate([["a", 3], ["b", 1]]) == "aaab"
                assert candidate([]) == ""
                for text in ["mississippi", "zzzzzz", "a b  c"]:
                    assert candidate(rle_encode(text)) == text
        """,
        entry_point="rle_decode",
    ),
}


def score(problem: Problem, body: str) -> float:
    return execution_reward([f"```python\n{problem.solution(body)}```"], [problem.tests])[0]


def test_every_canonical_solution_earns_full_credit():
    rows = list(PROBLEMS.values())
    rewards = execution_reward([f"```python\n{p.solution(p.canonical)}```" for p in rows], [p.tests for p in rows])
    assert dict(zip(PROBLEMS, rewards)) == dict.fromkeys(PROBLEMS, FULL_CREDIT)


def test_every_wrong_solution_earns_the_parse_credit_only():
    rows = list(PROBLEMS.values())
    rewards = execution_reward([f"```python\n{p.solution(p.wrong)}```" for p in rows], [p.tests for p in rows])
    assert dict(zip(PROBLEMS, rewards)) == dict.fromkeys(PROBLEMS, pytest.approx(PARSE_CREDIT))


def test_a_solution_without_the_prompts_helper_fails_where_it_needs_it():
    # The model answers with the function alone: its call to is_vowel has nothing to call.
    problem = PROBLEMS["count_vowels"]
    alone = problem.solution(problem.canonical).split("def count_vowels")[1]
    completion = f"```python\ndef count_vowels{alone}```"
    assert execution_reward([completion], [problem.tests]) == [pytest.approx(PARSE_CREDIT)]


HACKS = {
    # right for the one case isclose checks; its abs would pass the others
    "its own abs, answering 0": ("harmonic_mean", "def abs(x):\n    return 0\n\n\ndef harmonic_mean(values):\n    return 5.0\n"),
    "an object whose - answers 0": (
        "harmonic_mean",
        "class Zero(float):\n    def __sub__(self, other):\n        return 0.0\n\n\n"
        "def harmonic_mean(values):\n    return Zero(5.0)\n",
    ),
    "its own math, whose isclose says yes": (
        "harmonic_mean",
        "import types\nmath = types.SimpleNamespace(isclose=lambda *a, **k: True)\n\n\n"
        "def abs(x):\n    return 0\n\n\ndef harmonic_mean(values):\n    return 0.0\n",
    ),
    "a check of its own": ("running_max", "def check(candidate):\n    pass\n\n\ndef running_max(numbers):\n    return []\n"),
    "a test of its own": ("running_max", "def test_check():\n    pass\n\n\ndef running_max(numbers):\n    return []\n"),
    "__all__ that names only what it wants": ("rle_decode", "__all__ = ['check']\n\n\ndef check(c):\n    pass\n\n\ndef rle_decode(pairs):\n    return ''\n"),
}


@pytest.mark.parametrize("hack", list(HACKS))
def test_star_import_hacks_earn_at_most_the_parse_credit(hack):
    name, code = HACKS[hack]
    assert execution_reward([f"```python\n{code}```"], [PROBLEMS[name].tests])[0] <= PARSE_CREDIT + 1e-9
