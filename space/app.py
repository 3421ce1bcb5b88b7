"""Rusty's Hugging Face Space: chat with the quantized model; actions render as cards.

Run locally (or on a Space, where `app_file: app.py` starts it):

    python space/app.py                                     # the quickstart's model, outputs/tiny-grpo
    RUSTY_MODEL=outputs/tiny-sft python space/app.py       # a folder, or a Hub id

Environment:
    RUSTY_MODEL          folder written by save_pretrained, or a Hub id (default: the quickstart's
                         outputs/tiny-grpo in this repository, when it exists)
    RUSTY_QUANTIZATION   none | int8 | 4bit (default: int8 on CPU, 4bit on CUDA)
    RUSTY_SANDBOX_EXEC   1 to run CMD actions in rusty_hf.sandbox (default off: commands are shown only)

What a reply does: the model's text streams in; the final text is parsed with
`rusty_hf.protocol.parse_action`. MSG shows as chat text, CMD as a command card that is never run
on the host (with RUSTY_SANDBOX_EXEC=1 it runs in the sandbox, in a fresh copy of the session's
work dir, under tight limits), EDIT writes the file into the session's work dir (a private temp
dir, shown in the file view). A reply that breaks the protocol shows with its correction.
Constrained decoding (`ProtocolLogitsProcessor`) is on by default.

At start the model is checked (a wrong folder or an unreachable Hub is one line on stderr and exit
status 2), loaded without progress bars, and warmed up (`rusty_hf.inference.warmup`: the compiled CPU
kernels and one short reply), so the first visitor's answer does not pay for them.

Public-service hygiene: one shared model, a bounded queue and concurrency, a cap on message
length, errors that reveal nothing of the server (details go to its log), and a link to the
source, which AGPL-3.0 section 13 requires of a network service.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent))  # render.py sits beside this file

import render

from rusty_hf.errors import UserError, run_cli

if TYPE_CHECKING:  # gradio and torch load after the configuration is checked: a mistake fails at once
    import gradio as gr

logger = logging.getLogger("rusty_space")

SOURCE_URL = "https://github.com/rusty-hf/rusty_hf"
QUICKSTART_MODEL = Path(__file__).resolve().parent.parent / "outputs" / "tiny-grpo"  # bash recipes/quickstart.sh
QUANTIZATIONS = ("none", "int8", "4bit")
MAX_INPUT_CHARS = 2000
MAX_NEW_TOKENS = 256
CONCURRENCY_LIMIT = 2  # generations at once; each takes a core on the free CPU Space
MAX_QUEUE = 64
SESSION_TTL_S = 3600
MAX_FILES, MAX_FILE_BYTES = 32, 64 * 1024

CSS = """
.rusty-card { border: 1px solid #8884; border-radius: 8px; padding: 6px 10px; }
.rusty-cmd { border-left: 4px solid #d97706; }
.rusty-edit { border-left: 4px solid #2563eb; }
.rusty-error { border-left: 4px solid #dc2626; }
"""


# A new visitor's work dir: a small project to ask about ("what files are here?", "run hello.py").
DEMO_FILES = {
    "README.md": "# demo\n\nA tiny project to try Rusty on.\n",
    "hello.py": "print('hello from the demo')\n",
    "notes.txt": "list the files\nrun hello.py\ncount the lines of notes.txt\n",
}


class Session:
    """One visitor's conversation and work dir (a private temp dir holding `DEMO_FILES`, removed when
    the session ends)."""

    def __init__(self) -> None:
        self.turns: list[dict[str, str]] = []
        self.workdir = Path(tempfile.mkdtemp(prefix="rusty-space-"))
        for name, content in DEMO_FILES.items():
            (self.workdir / name).write_text(content, encoding="utf-8")

    def write(self, path: str, content: str) -> str | None:
        """Write an EDIT into the work dir; returns why it was refused, or None."""
        rel = PurePosixPath(path)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            return f"refused: {path!r} is not a relative path inside the work dir"
        if len(content.encode()) > MAX_FILE_BYTES:
            return f"refused: files are limited to {MAX_FILE_BYTES} bytes"
        target = self.workdir.joinpath(*rel.parts)
        try:  # the path is the model's: too long a name, or a file where a folder must go, is refused, not a crash
            if not target.exists() and len(self.files()) >= MAX_FILES:
                return f"refused: the work dir holds at most {MAX_FILES} files"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except OSError as exc:
            return f"refused: cannot write that path ({exc.strerror or type(exc).__name__})"
        return None

    def files(self) -> dict[str, str]:
        return {
            p.relative_to(self.workdir).as_posix(): p.read_text(encoding="utf-8", errors="replace")
            for p in self.workdir.rglob("*")
            if p.is_file()
        }

    def close(self) -> None:
        shutil.rmtree(self.workdir, ignore_errors=True)


def _close_session(session: Session | None) -> None:
    if session is not None:
        session.close()


def run_in_sandbox(command: str, files: dict[str, str]) -> str:
    """Run a CMD with bash in rusty_hf.sandbox, in a fresh copy of the session's files."""
    from rusty_hf.sandbox import Limits, run

    limits = Limits(cpu_s=5, memory_mb=512, fsize_mb=4, nproc=32, output_bytes=64 * 1024, disk_mb=16)
    result = run(["bash", "-c", command], files=files, timeout=10, limits=limits)
    return render.render_execution(result.returncode, result.stdout, result.stderr, result.limit_hit)


def reply_stream(model, tokenizer, session: Session, *, constrained: bool, max_new_tokens: int) -> Iterator[str]:
    """The reply to ``session.turns`` decoded so far, as rusty-terminal decodes it (`rusty_hf.inference.stream_reply`):
    greedy, constrained when asked, copying from the request, the command outputs since and the work dir."""
    from rusty_hf.inference import stream_reply

    return stream_reply(model, tokenizer, session.turns, max_new_tokens=max_new_tokens, constrained=constrained,
                        copy=True, workspace_names=list(session.files()), workspace_root=session.workdir)  # fmt: skip


def build_demo(
    model,
    tokenizer,
    *,
    sandbox_exec: bool = False,
    max_input_chars: int = MAX_INPUT_CHARS,
    max_new_tokens: int = MAX_NEW_TOKENS,
    concurrency_limit: int = CONCURRENCY_LIMIT,
    max_queue: int = MAX_QUEUE,
    title: str = "Rusty",
) -> gr.Blocks:
    """The Space's UI around an already loaded model (tests pass a tiny local one).

    The chat is exposed to clients as `/chat(message, history, constrained) -> (history, files, "")`.
    """
    import gradio as gr

    def respond(message: str, history: list, constrained: bool, session: Session | None):
        message = (message or "").strip()
        if not message:
            raise gr.Error("Type a message first.")
        if len(message) > max_input_chars:
            raise gr.Error(f"Message too long: {len(message)} characters (the limit is {max_input_chars}).")
        session = session or Session()
        session.turns.append({"role": "user", "content": message})
        history = list(history or []) + [
            {"role": "user", "content": message},
            {"role": "assistant", "content": render.render_partial("")},
        ]
        text = ""
        try:
            for text in reply_stream(model, tokenizer, session, constrained=constrained, max_new_tokens=max_new_tokens):
                history[-1] = {"role": "assistant", "content": render.render_partial(text)}
                yield history, render.render_files(session.files()), session, ""
        except Exception:
            logger.exception("generation failed")  # the details stay in the server log
            session.turns.pop()
            raise gr.Error("Generation failed on the server; please try again.") from None
        session.turns.append({"role": "assistant", "content": text.strip()})
        history[-1] = {"role": "assistant", "content": _final_card(text, session, sandbox_exec)}
        yield history, render.render_files(session.files()), session, ""

    with gr.Blocks(title=title) as demo:
        gr.Markdown(
            f"# {title}\nA tiny RWKV-4 coding assistant that answers with one JSON action per turn. "
            "Commands are shown, not run" + (" (or run in a sandbox)" if sandbox_exec else "") + "."
        )
        session = gr.State(None, time_to_live=SESSION_TTL_S, delete_callback=_close_session)
        with gr.Row():
            with gr.Column(scale=3):
                chatbot = gr.Chatbot(label="Rusty", height=480, elem_id="rusty-chat")
                textbox = gr.Textbox(
                    placeholder="Ask Rusty...", max_length=max_input_chars, show_label=False, elem_id="rusty-input"
                )
                constrained = gr.Checkbox(value=True, label="Constrained decoding (only valid actions)")
            with gr.Column(scale=2):
                files = gr.HTML(render.render_files({}), label="Work dir", elem_id="rusty-files")
        textbox.submit(
            respond,
            [textbox, chatbot, constrained, session],
            [chatbot, files, session, textbox],
            api_name="chat",
            concurrency_limit=concurrency_limit,
        )
        gr.HTML(
            f'<p id="rusty-source">Source code (AGPL-3.0): <a href="{SOURCE_URL}" target="_blank" '
            f'rel="noopener">{SOURCE_URL}</a>. This service runs that code; you may get it, change it and run it.</p>'
        )
    demo.queue(max_size=max_queue, default_concurrency_limit=concurrency_limit)
    return demo


def _final_card(text: str, session: Session, sandbox_exec: bool) -> str:
    from rusty_hf.protocol import ProtocolError, parse_action

    try:
        action = parse_action(text)
    except ProtocolError as err:
        return render.render_protocol_error(text, err)
    if action.action == "EDIT":
        refused = session.write(action.path, action.content)
        card = render.render_action(action)
        return card if refused is None else card + f"<p><small>{refused}</small></p>"
    if action.action == "CMD" and sandbox_exec:
        return render.render_action(action, executed=run_in_sandbox(action.command, session.files()))
    return render.render_action(action)


def model_name() -> str:
    """``RUSTY_MODEL``, else the quickstart's folder when it exists; neither is a `UserError` naming both fixes."""
    name = os.environ.get("RUSTY_MODEL", "").strip()
    if name:
        return name
    if QUICKSTART_MODEL.is_dir():
        return str(QUICKSTART_MODEL)
    raise UserError(
        f"RUSTY_MODEL is not set and the quickstart's model ({QUICKSTART_MODEL}) does not exist.\n"
        "Fix: run `bash recipes/quickstart.sh` first, or set RUSTY_MODEL to a saved model folder or an existing Hub id."
    )


def serve() -> None:
    """Check the configuration, load and warm up the model named by the environment, and serve it."""
    from rusty_hf.hub.checkpoints import check_model_source
    from rusty_hf.sandbox import require_isolation

    quantization = os.environ.get("RUSTY_QUANTIZATION", "").strip().lower() or None
    if quantization not in (None, *QUANTIZATIONS):
        raise UserError(f"RUSTY_QUANTIZATION={quantization!r} is not one of {', '.join(QUANTIZATIONS)}. Fix: set one of them, or unset it.")
    sandbox_exec = os.environ.get("RUSTY_SANDBOX_EXEC", "0").lower() in ("1", "true", "yes")
    if sandbox_exec:  # commands will run: without bubblewrap, one line naming the fix (or the opt-in)
        require_isolation()
    name = check_model_source(model_name())

    import torch

    from rusty_hf.inference import load_model, load_tokenizer_for, resolve_device
    from rusty_hf.inference.warmup import quiet_loading, warm_up

    logging.basicConfig(level=logging.INFO)
    device = resolve_device(None)
    if device.type == "cpu":
        # One thread per concurrent generation: split kernels stall when the cores are all busy
        # (rusty_hf/inference/int8.py has the numbers).
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // CONCURRENCY_LIMIT))
    quiet_loading()
    model = load_model(name, quantization=quantization or ("int8" if device.type == "cpu" else "4bit"), device=device)
    tokenizer = load_tokenizer_for(model, name)
    logger.info("warming up %s (compiled kernels, one short reply)", name)
    logger.info("warm-up took %.1f s", warm_up(model, tokenizer))
    build_demo(model, tokenizer, sandbox_exec=sandbox_exec).launch(show_error=False, css=CSS, max_threads=16)


def main() -> int:
    from rusty_hf.errors import quiet_upstream_notices

    quiet_upstream_notices()
    return run_cli("space/app.py", serve)


if __name__ == "__main__":
    sys.exit(main())
