"""CodingEnv: a multi-turn coding environment for TRL's ``GRPOTrainer(environment_factory=...)``.

One episode is one task from ``rusty_hf.data.tasks``: a fresh work dir holding the task's tests as
``test_solution.py``; the model acts with CMD (run a shell command, sandboxed) and EDIT (write a
file), sees each result as a ``<|system|>`` turn, and ends the episode with MSG (or any turn that
is not a tool call). The reward reads the work dir at the end: the task's own tests run against
``solution.py`` through the execution reward (+0.3 when it parses and defines something, +0.7 x
the fraction of tests passed). Python tasks only: for other languages ``get_reward`` returns None,
which TRL leaves out of the mean.

    from trl import GRPOConfig, GRPOTrainer
    from rusty_hf.agent.env import CodingEnv
    from rusty_hf.agent.tool_calling import enable_tool_calling
    from rusty_hf.data.tasks import load_tasks

    trainer = GRPOTrainer(
        model=model, args=GRPOConfig(..., max_tool_calling_iterations=4),
        train_dataset=load_tasks(language="python", split="train"),
        processing_class=enable_tool_calling(tokenizer),   # Rusty's actions as tool calls
        environment_factory=CodingEnv,
    )

TRL calls ``reset(**row)`` with every dataset column and appends what it returns to the prompt's
last message, calls the tool methods by the names the model uses (``CMD``, ``EDIT``; see
``rusty_hf.agent.tool_calling.protocol_tool``), and calls ``get_reward()`` once per rollout.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import weakref
from pathlib import Path

from rusty_hf.agent.tool_calling import protocol_tool
from rusty_hf.agent.workspace import PathRefused, Workspace
from rusty_hf.rewards.python_exec.execution import SOLUTION_FILE, TESTS_FILE, get_execution_reward
from rusty_hf.sandbox import Limits

# Host-wide pytest plugins are not the task's, and loading them costs seconds per command.
COMMAND_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
MAX_RESULT_CHARS = 2000  # a tool result is prompt tokens for every later turn; keep its tail only
INSTRUCTIONS = (
    "\n\nYou are in a work dir holding `{tests}` (the tests). Write `{solution}` with an EDIT action, "
    "check it with CMD `python3 -m pytest -q`, and answer MSG when it passes."
)


class CodingEnv:
    """A sandboxed work dir per episode, the CMD/EDIT tools, and the execution reward of its ``solution.py``.

    Args:
        timeout: wall-clock seconds per command and per test run.
        parse_weight: reward for a ``solution.py`` that parses and defines a function or class.
        pass_weight: reward multiplied by the fraction of the task's tests that pass.
        limits: sandbox limits per command; None takes the workspace default.
        instructions: text ``reset`` returns (TRL appends it to the prompt's last message); None adds
            nothing, for datasets whose prompts already explain the work dir.
    """

    def __init__(
        self,
        timeout: float = 10.0,
        parse_weight: float = 0.3,
        pass_weight: float = 0.7,
        limits: Limits | None = None,
        instructions: str | None = INSTRUCTIONS,
    ) -> None:
        self.timeout = timeout
        self.limits = limits
        self.instructions = instructions
        # The registered execution reward, so the score matches `reward_funcs: [execution]` exactly;
        # one worker, since TRL scores many environments of a batch one after another.
        self._score = get_execution_reward(parse_weight, pass_weight, timeout=timeout, max_workers=1)
        self.workspace: Workspace | None = None
        self.tests: str | None = None
        self.language: str | None = None
        self.turns = 0
        self._dir: str | None = None
        self._finalizer: weakref.finalize | None = None

    def reset(self, tests: str | None = None, language: str | None = "python", **row) -> str | None:
        """Start an episode in a fresh work dir; returns the instructions TRL appends to the prompt.

        Args:
            tests: the task's test code (the ``tests`` column of ``load_tasks()``).
            language: the task's language; only "python" is scored.
            **row: the other dataset columns (prompt, name, ...), unused.
        """
        if not isinstance(tests, str) or not tests.strip():
            raise ValueError("CodingEnv needs a 'tests' column with the task's test code; use rusty_hf.data.tasks.load_tasks")
        self._cleanup()
        self._dir = tempfile.mkdtemp(prefix="rusty-coding-env-")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self._dir, True)
        self.workspace = Workspace(self._dir, timeout=self.timeout, limits=self.limits, env=COMMAND_ENV)
        self.workspace.write_file(TESTS_FILE, tests)
        self.tests, self.language, self.turns = tests, language, 0
        if self.instructions is None:
            return None
        return self.instructions.format(tests=TESTS_FILE, solution=SOLUTION_FILE)

    @protocol_tool("CMD")
    def run_command(self, command: str) -> str:
        """Run one shell command in the work dir (sandboxed) and return its output and exit code.

        Args:
            command: the shell command, e.g. "python3 -m pytest -q".
        """
        self.turns += 1
        return self._workspace().run(command).describe(MAX_RESULT_CHARS)

    @protocol_tool("EDIT")
    def edit_file(self, path: str, content: str) -> str:
        """Write a whole file in the work dir, replacing what was there.

        Args:
            path: the file, relative to the work dir, e.g. "solution.py".
            content: the complete new content of the file.
        """
        self.turns += 1
        try:
            target = self._workspace().write_file(path, content)
        except PathRefused as exc:
            return str(exc)
        return f"wrote {target.relative_to(self._workspace().root)} ({len(content)} chars)"

    def get_reward(self) -> float | None:
        """Score ``solution.py`` against the task's tests: 0.3 if it parses and defines something + 0.7 x pass rate."""
        if self.language not in (None, "python") or self.workspace is None:
            return None
        solution = Path(self.workspace.root, SOLUTION_FILE)
        if not solution.is_file():
            return 0.0
        code = solution.read_text(encoding="utf-8", errors="replace")
        # Handed over as the EDIT action the reward already understands, so no code is re-extracted from prose.
        completion = json.dumps({"action": "EDIT", "path": SOLUTION_FILE, "content": code})
        return self._score([completion], [self.tests], language=[self.language])[0]

    def _workspace(self) -> Workspace:
        if self.workspace is None:
            raise RuntimeError("CodingEnv.reset(tests=...) must start an episode before its tools are called")
        return self.workspace

    def _cleanup(self) -> None:
        if self._finalizer is not None:
            self._finalizer()  # removes the previous episode's work dir
        self._finalizer = self._dir = self.workspace = None
