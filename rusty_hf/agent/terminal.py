"""rusty-terminal: chat with Rusty in a terminal while it runs commands and edits files in a work dir.

    rusty-terminal --model outputs/tiny-sft --workdir ./project
    rusty-terminal --model user/rusty-r2 --quantization 4bit --dry-run
    python3 -m rusty_hf.agent.terminal --help

Rusty's replies stream as they are generated. A CMD runs in the sandbox (``rusty_hf.sandbox``) on a
copy of the work dir and its file changes are copied back; an EDIT writes only inside the work dir
(absolute paths, ``..`` and symlinks that leave it are refused, with a message). Commands typed at
the prompt: ``:dry`` toggles dry-run (actions shown, not executed), ``:undo`` puts back the files
that Rusty's last reply wrote or deleted, and its folders (again: the reply before, up to twenty requests back),
``:clear`` starts a new conversation, ``:help`` lists these, ``:q``/``exit`` (or Ctrl-D) quit. Input
lines are kept in a readline history file (``--history-file``).
A CMD or EDIT that would delete a file or rewrite one losing its old bytes asks first (``[y/N]``; ``--yes`` applies
such changes without asking); declined, nothing it did is kept and Rusty sees that.

Before the first prompt the arguments and the model folder are checked (a mistake is one line on
stderr and exit status 2; ``--debug`` shows a traceback), the model loads without progress bars, and
one short reply warms it up (``rusty_hf.inference.warmup``), so the first real reply pays no one-time
cost. Only argparse and this module load for ``--help``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rusty_hf.errors import run_cli

if TYPE_CHECKING:  # the heavy imports wait until the arguments are parsed: --help stays instant
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

    from rusty_hf.agent.session import AgentSession, Step

QUANTIZATIONS = ("none", "int8", "4bit")  # rusty_hf.inference.QUANTIZATIONS, without importing torch
QUIT = {":q", ":quit", "exit", "quit"}
HELP = (":dry toggle dry-run | :undo put back what the last reply changed | :clear new conversation"
        " | :help this text | :q or exit quit")
DEFAULT_HISTORY = "~/.rusty_terminal_history"


def _at_least(low: float, kind: type = int):
    def parse(text: str):
        value = kind(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be >= {low}, got {value}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rusty-terminal", description=__doc__.split("\n\n")[0].split(": ", 1)[1])
    parser.add_argument("--model", required=True,
                        help="checkpoint folder written by save_pretrained (e.g. outputs/tiny-grpo), or a Hub id namespace/name")
    parser.add_argument("--workdir", default=".", help="directory Rusty works in (default: the current one)")
    parser.add_argument("--quantization", choices=QUANTIZATIONS, default="none",
                        help="weight quantization: none, int8 (CPU weight-only or bitsandbytes on CUDA) or 4bit (bitsandbytes)")
    parser.add_argument("--trust-remote-code", action="store_true", help="allow a Hub checkpoint's own model code")
    parser.add_argument("--dry-run", action="store_true", help="start with dry-run on: show CMD/EDIT, run nothing")
    parser.add_argument("--yes", action="store_true",
                        help="apply an action that deletes a file or rewrites its lines without asking first")
    parser.add_argument("--history-file", default=DEFAULT_HISTORY, help="readline history file ('' for none)")
    parser.add_argument("--max-new-tokens", type=_at_least(1), default=256, help="generation budget per reply")
    parser.add_argument("--max-retries", type=_at_least(0), default=2, help="retries after a malformed reply")
    parser.add_argument("--max-steps", type=_at_least(1), default=4, help="actions per message before you get the prompt back")
    parser.add_argument("--system-prompt", default=None, help="replace the Rusty persona system prompt")
    parser.add_argument("--timeout", type=_at_least(0.1, float), default=30.0, help="seconds a command may run")
    parser.add_argument("--no-constrained", dest="constrained", action="store_false",
                        help="decode freely (malformed replies get a correction and a retry)")  # fmt: skip
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    return parser


def load_agent(args: argparse.Namespace) -> tuple[PreTrainedModel, PreTrainedTokenizerBase]:
    """The model (through ``rusty_hf.inference.load_model``, which checks the folder and owns quantization)
    and its tokenizer, checked to fit the model."""
    from rusty_hf.inference import load_model, load_tokenizer_for

    model = load_model(args.model, quantization=args.quantization, trust_remote_code=args.trust_remote_code)
    return model, load_tokenizer_for(model, args.model, trust_remote_code=args.trust_remote_code)


class History:
    """Input history in a file, through readline when the platform has it (arrow keys, Ctrl-R)."""

    def __init__(self, path: str) -> None:
        self.path = Path(path).expanduser() if path else None
        try:
            import readline
        except ImportError:  # e.g. Windows without pyreadline
            readline = None
        self.readline = readline
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch(exist_ok=True)
            if readline is not None:
                readline.read_history_file(self.path)

    def add(self, line: str) -> None:
        if self.path is None:
            return
        if self.readline is not None:
            if not sys.stdin.isatty():  # input() only records lines it read through readline
                self.readline.add_history(line)
            self.readline.append_history_file(1, self.path)
        else:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(line + "\n")


def _print(text: str = "", end: str = "\n") -> None:
    sys.stdout.write(text + end)
    sys.stdout.flush()


class ReplyPrinter:
    """Streams a reply as it is generated: a MSG as its text, not JSON; other actions once whole (``show_step``)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start a new reply (after each step, and after a malformed reply that gets a retry)."""
        self.fresh, self.buffer, self.shown = True, "", 0

    def __call__(self, chunk: str) -> None:
        from rusty_hf.protocol.actions import partial_message

        self.buffer += chunk
        text = partial_message(self.buffer)
        if text is None or len(text) == self.shown:
            return
        if self.fresh:
            _print("rusty> ", end="")
            self.fresh = False
        _print(text[self.shown :], end="")
        self.shown = len(text)


def show_step(step: Step, printer: ReplyPrinter | None = None) -> None:
    """What happened, after the reply: the MSG's text (unless it streamed), the action and its effect."""
    streamed = printer is not None and not printer.fresh
    if printer is not None:
        printer.reset()
    if step.error is not None:
        _print(f"rusty> {step.raw}" if step.raw.strip() else "rusty> (empty reply)")
        _print(f"[no valid action after {step.retries + 1} tries: {step.error}]")
        return
    action = step.action
    if action.action == "MSG":
        _print("" if streamed else f"rusty> {action.message}")
    elif action.action == "CMD":
        _print(f"rusty> $ {action.command}")
    else:
        lines = action.content.count("\n") + (not action.content.endswith("\n"))
        _print(f"rusty> [edit {action.path}: {lines} line{'s' if lines != 1 else ''}]")
    if step.result is not None:
        _print(step.result)


def handle_line(line: str, session: AgentSession, printer: ReplyPrinter | None = None) -> bool:
    """Act on one input line; returns False when the user quits."""
    text = line.strip()
    if not text:
        return True
    if text in QUIT:
        return False
    if text == ":dry":
        session.dry_run = not session.dry_run
        _print(f"[dry-run {'on' if session.dry_run else 'off'}]")
    elif text == ":undo":
        paths = session.undo()
        _print(f"[undone: {', '.join(paths)}]" if paths else "[nothing to undo]")
    elif text == ":clear":
        session.clear()
        _print("[new conversation]")
    elif text == ":help":
        _print(HELP)
    elif text.startswith(":"):
        _print(f"[unknown command {text}; {HELP}]")
    else:
        for step in session.respond(text):
            show_step(step, printer)
    return True


MAX_LISTED = 5  # paths named in the question; the rest are counted


def _listed(paths: list[str]) -> str:
    names = [path if path.isprintable() else repr(path) for path in paths[:MAX_LISTED]]
    return ", ".join(names) + (f" and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else "")


def ask_before_loss(action, deleted: list[str], rewritten: list[str]) -> bool:
    """Ask at the prompt whether to apply an action that deletes ``deleted`` or rewrites ``rewritten``: y applies it.

    Only a terminal is asked: on piped input the next line is the next request, not an answer, so the action is
    not applied (``--yes`` applies such actions). Ctrl-C or Ctrl-D at the question is a no."""
    shown = f"$ {action.command}" if action.action == "CMD" else f"edit {action.path}"
    what = "; ".join(f"{verb} {_listed(paths)}" for verb, paths in (("deletes", deleted), ("rewrites", rewritten)) if paths)
    if not sys.stdin.isatty():
        _print(f"[{shown} {what}: not applied; stdin is not a terminal (--yes applies such actions)]")
        return False
    try:
        answer = input(f"[{shown} {what}. Apply? y/N] ")
    except (EOFError, KeyboardInterrupt):
        _print()
        return False
    try:  # the answer is no request: keep it out of the readline history
        import readline

        readline.remove_history_item(readline.get_current_history_length() - 1)
    except (ImportError, ValueError):
        pass
    return answer.strip().lower() in ("y", "yes")


def start_session(args: argparse.Namespace, printer: ReplyPrinter) -> AgentSession:
    """Check the arguments, load the model, warm it up (so the first reply is quick) and open the session."""
    from rusty_hf.hub.checkpoints import check_model_source
    from rusty_hf.sandbox import require_isolation
    from rusty_hf.errors import NoSuchPathError

    if not Path(args.workdir).expanduser().is_dir():
        raise NoSuchPathError(f"no such folder: {args.workdir} (--workdir). Fix: create it, or pass an existing folder.")
    if not args.dry_run:  # commands will run: without bubblewrap, one line naming the fix (or the opt-in)
        require_isolation()
    check_model_source(args.model)  # before torch loads: a wrong path fails at once
    from rusty_hf.agent.session import AgentSession
    from rusty_hf.agent.workspace import Workspace
    from rusty_hf.inference.warmup import quiet_loading, warm_up

    quiet_loading()
    model, tokenizer = load_agent(args)

    def on_retry(err) -> None:
        _print(f"{'' if printer.fresh else chr(10)}[malformed reply ({err.kind}); sent the correction, retrying]")
        printer.reset()

    session = AgentSession(
        model, tokenizer, Workspace(args.workdir, timeout=args.timeout), system_prompt=args.system_prompt,
        max_new_tokens=args.max_new_tokens, max_retries=args.max_retries, max_steps=args.max_steps,
        constrained=args.constrained, dry_run=args.dry_run, on_text=printer, on_retry=on_retry,
        confirm=None if args.yes else ask_before_loss,
    )  # fmt: skip
    warm_up(model, session.tokenizer, constrained=args.constrained)
    return session


def chat(args: argparse.Namespace) -> int:
    printer = ReplyPrinter()
    session = start_session(args, printer)
    history = History(args.history_file)
    _print(f"Rusty in {session.workspace.root}{' (dry-run)' if args.dry_run else ''}. {HELP}")
    while True:
        try:
            line = input("you> ")
        except EOFError:
            _print()
            return 0
        except KeyboardInterrupt:
            _print("^C")
            continue
        history.add(line)
        try:
            if not handle_line(line, session, printer):
                return 0
        except KeyboardInterrupt:
            _print("\n[interrupted]")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from rusty_hf.errors import quiet_upstream_notices

    quiet_upstream_notices()
    return run_cli("rusty-terminal", lambda: chat(args), argv)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
