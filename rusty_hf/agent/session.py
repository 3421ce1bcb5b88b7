"""The agent loop: chat history -> streamed generation -> ``parse_action`` -> correction/retry -> execute.

    from rusty_hf.agent.session import AgentSession
    from rusty_hf.agent.workspace import Workspace

    session = AgentSession(model, tokenizer, Workspace("project/"), on_text=print)
    for step in session.respond("run the tests"):
        print(step.action, step.result)

One user message may lead to several steps: after a CMD or EDIT the model sees the result (as a
``tool`` message, rendered as a ``<|system|>`` turn) and acts again, until it answers MSG or
``max_steps`` actions have run. With ``confirm``, a CMD or EDIT that would delete a file or rewrite one losing its
old bytes is carried out only if ``confirm(action, deleted, rewritten)`` says yes (rusty-terminal asks the user); the model
sees that it was not. An action identical to the two before it (within one user message)
is not run a third time: the step says so and control returns to the user. An action the workspace
cannot carry out (a refused path, a command holding a NUL character, a work dir over its size
limit) is answered with one line naming the problem, which the model sees too; nothing is raised. A reply that is not a valid action gets the protocol's correction
message (a ``system`` turn) and another try, at most ``max_retries`` times per step. With
``dry_run`` on, CMDs and EDITs are shown to the model and the user as not executed.

Generation is greedy, streams text through ``transformers.TextIteratorStreamer`` to ``on_text``, and by
default runs under ``ProtocolLogitsProcessor`` so only valid actions can come out (``constrained=False``
lets malformed output through, which is what the retries are for). It is the Space's and the terminal
evaluation's decoding (`rusty_hf.inference.streaming`, `rusty_hf.inference.decoding`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from transformers import PreTrainedModel, PreTrainedTokenizerBase

from rusty_hf.agent.tool_calling import enable_tool_calling
from rusty_hf.agent.workspace import PathRefused, Workspace, loses_data
from rusty_hf.inference.streaming import stream_pieces
from rusty_hf.sandbox import SandboxError
from rusty_hf.protocol import Action, ProtocolError, parse_action
from rusty_hf.tokenizer import generation_eos_ids

MAX_RESULT_CHARS = 2000  # what the model sees of a command's output (its tail)
MAX_REPEATS = 2  # times one action may run in a row within a user message
REPEAT_NOTE = "[not run again: the same action came {n} times in a row. Tell Rusty what to do differently.]"
REWRITE_NOTE = "[not written: {path} was written by the step before, and nothing ran since. Say what to change in it.]"


@dataclass
class Step:
    """One action the model took (or failed to produce) and what came of it."""

    action: Action | None
    raw: str  # the model's last reply text
    result: str | None = None  # CMD output, EDIT confirmation or refusal; None for MSG
    executed: bool = False  # False for MSG, a dry run, a refusal, or no valid action
    error: ProtocolError | None = None  # set when every retry was malformed
    retries: int = 0
    repeated: bool = False  # the same action as the last MAX_REPEATS ones, or an EDIT of the file the one before
    # wrote (nothing new was learned in between): not run, the turn ends


class AgentSession:
    """A conversation with Rusty that acts on a :class:`Workspace`.

    Args:
        model: a causal LM (TinyRWKV or any ``generate``-capable model).
        tokenizer: Rusty's tokenizer; it gets the tool-aware chat template (see ``tool_calling``).
        workspace: where EDITs write and CMDs run.
        system_prompt: the conversation's system message; None keeps the template's Rusty persona.
        max_new_tokens: generation budget per reply.
        max_retries: extra tries after a malformed reply, per step.
        max_steps: actions per user message before control returns to the user.
        constrained: decode under ``ProtocolLogitsProcessor`` (valid actions only).
        copy: with ``constrained``, favour tokens that copy a name of the user's request or of the
            command outputs since (`rusty_hf.protocol.copying`), and request words that name a path of
            the workspace: Rusty writes the file it was asked about, not one it remembers.
        dry_run: show CMD/EDIT without executing them (toggle at any time).
        confirm: asked ``(action, deleted, rewritten)`` before a CMD or EDIT loses data (`workspace.loses_data`); None applies
            every change (``:undo`` still puts it back).
        on_text: called with each streamed chunk of model text.
        on_retry: called with each ProtocolError before its correction is sent.
    """

    def __init__(
        self,
        model: PreTrainedModel,
        tokenizer: PreTrainedTokenizerBase,
        workspace: Workspace,
        *,
        system_prompt: str | None = None,
        max_new_tokens: int = 256,
        max_retries: int = 2,
        max_steps: int = 4,
        constrained: bool = True,
        copy: bool = True,
        dry_run: bool = False,
        confirm: Callable[[Action, list[str], list[str]], bool] | None = None,
        on_text: Callable[[str], None] | None = None,
        on_retry: Callable[[ProtocolError], None] | None = None,
    ) -> None:
        if max_new_tokens < 1 or max_retries < 0 or max_steps < 1:
            raise ValueError(f"need max_new_tokens >= 1, max_retries >= 0, max_steps >= 1; got "
                             f"{max_new_tokens}, {max_retries}, {max_steps}")  # fmt: skip
        self.model = model.eval()
        self.tokenizer = enable_tool_calling(tokenizer)
        self.workspace = workspace
        self.max_new_tokens, self.max_retries, self.max_steps = max_new_tokens, max_retries, max_steps
        self.constrained, self.copy, self.dry_run, self.confirm = constrained, copy, dry_run, confirm
        self.on_text, self.on_retry = on_text, on_retry
        generation_eos_ids(tokenizer)  # a tokenizer without Rusty's end-of-turn token fails here, not mid-chat
        self.system_prompt = system_prompt
        self.clear()

    def clear(self) -> None:
        """Start a new conversation (the workspace is kept)."""
        self.messages: list[dict] = []
        if self.system_prompt is not None:
            self.messages.append({"role": "system", "content": self.system_prompt})

    def respond(self, user_text: str) -> Iterator[Step]:
        """Add a user message and yield each step the model takes, executing as it goes (one undo step)."""
        self.messages.append({"role": "user", "content": user_text})
        self.workspace.begin_change()
        previous: list[Action] = []
        written = None  # the file the step before wrote, if it was an EDIT that was applied
        for _ in range(self.max_steps):
            step = self._next_action()
            if step.action is not None and step.action.action != "MSG":
                if len(previous) >= MAX_REPEATS and all(a == step.action for a in previous[-MAX_REPEATS:]):
                    step.repeated = True
                    step.result = REPEAT_NOTE.format(n=MAX_REPEATS + 1)
                elif step.action.action == "EDIT" and step.action.path == written:  # "wrote x.py" says nothing new
                    step.repeated = True
                    step.result = REWRITE_NOTE.format(path=step.action.path)
                if step.repeated:
                    self.messages.append({"role": "tool", "name": step.action.action, "content": step.result})
                    yield step
                    return
                previous.append(step.action)
                step.result, step.executed = self.execute(step.action)
                written = step.action.path if step.action.action == "EDIT" and step.executed else None
                self.messages.append({"role": "tool", "name": step.action.action, "content": step.result})
            yield step
            if step.action is None or step.action.action == "MSG":
                return

    def undo(self) -> list[str]:
        """Put back the files that the last reply with changes wrote or deleted; returns their paths.

        The conversation is told, so the model does not take its change for done.
        """
        paths = self.workspace.undo()
        if paths:
            self.messages.append({"role": "system", "content": "The user undid your last changes: " + ", ".join(paths)})
        return paths

    def _next_action(self) -> Step:
        """Generate until a reply parses, sending a correction after each malformed one."""
        for attempt in range(self.max_retries + 1):
            raw = self.generate()
            try:
                action = parse_action(raw)
            except ProtocolError as err:
                self.messages.append({"role": "assistant", "content": raw})
                self.messages.append({"role": "system", "content": err.correction_message})
                if self.on_retry is not None:
                    self.on_retry(err)
                error = err
                continue
            self.messages.append({"role": "assistant", "content": action.to_json()})
            return Step(action, raw, retries=attempt)
        return Step(None, raw, error=error, retries=self.max_retries)

    def execute(self, action: Action) -> tuple[str, bool]:
        """Run a CMD or apply an EDIT in the workspace; returns (result text, executed).

        What the workspace refuses or cannot do comes back as the result text, never as an exception:
        a bad action from the model must not end the user's session.
        """
        if action.action == "CMD":
            if self.dry_run:
                return f"[dry run] not executed: {action.command}", False
            try:
                approve = None if self.confirm is None else lambda deleted, rewritten: self.confirm(action, deleted, rewritten)
                return self.workspace.run(action.command, approve=approve).describe(MAX_RESULT_CHARS), True
            except (ValueError, OSError, SandboxError) as exc:  # CommandRefused, WorkspaceTooBig, ...
                return f"[not run: {exc}]", False
        if action.action == "EDIT":
            try:
                target = self.workspace.resolve(action.path)
            except PathRefused as exc:
                return str(exc), False
            if self.dry_run:
                return f"[dry run] not written: {action.path} ({len(action.content)} chars)", False
            if self.confirm is not None and target.is_file():
                try:
                    lost = loses_data(target.read_bytes(), action.content.encode("utf-8"))
                except OSError:  # unreadable: ask rather than guess
                    lost = True
                if lost and not self.confirm(action, [], [action.path]):
                    return f"[not written: the user did not approve rewriting {action.path}]", False
            try:
                self.workspace.write_file(action.path, action.content)
            except (PathRefused, OSError) as exc:
                return f"could not write {action.path}: {exc}", False
            return f"wrote {target.relative_to(self.workspace.root)} ({len(action.content)} chars)", True
        raise ValueError(f"only CMD and EDIT act on the workspace, got {action.action}")

    def generate(self) -> str:
        """One greedy reply to the conversation so far, streamed to ``on_text``; returns its text.

        Decoded as the Space and the terminal evaluation decode (`rusty_hf.inference.stream_pieces`), with
        the whole conversation as the prompt and no deadline between pieces (a slow CPU may take its time).
        """
        copying = self.constrained and self.copy
        chunks: list[str] = []
        for chunk in stream_pieces(self.model, self.tokenizer, self.messages, self.max_new_tokens,
                                   constrained=self.constrained, copy=self.copy, max_prompt_tokens=None, timeout_s=None,
                                   workspace_names=self.workspace.paths() if copying else (),
                                   workspace_root=self.workspace.root):  # fmt: skip
            if not chunks:
                chunk = chunk.lstrip(" ")  # the tokenizer's prefix space, not the model's text
            chunks.append(chunk)
            if self.on_text is not None and chunk:
                self.on_text(chunk)
        return "".join(chunks)
