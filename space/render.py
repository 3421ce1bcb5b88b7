"""HTML for the Space's chat: one card per action, and the file view of a session's work dir.

Everything the model wrote is HTML-escaped before it is placed in a card (the chat renders HTML,
and the model's text is untrusted); the cards carry `rusty-card rusty-<kind>` classes that the
page's CSS and the browser test key on.
"""

from __future__ import annotations

import html

from rusty_hf.protocol import Action, ProtocolError


def _pre(text: str) -> str:
    return f"<pre><code>{html.escape(text)}</code></pre>"


def render_partial(text: str) -> str:
    """The reply while it is still streaming: the raw JSON so far."""
    return f'<div class="rusty-card rusty-streaming">{_pre(text)}</div>'


def render_action(action: Action, executed: str | None = None) -> str:
    """MSG as chat text; CMD as a command card (with the sandbox's output when it ran); EDIT as a file card."""
    if action.action == "MSG":
        return f'<div class="rusty-card rusty-msg">{html.escape(action.message)}</div>'
    if action.action == "CMD":
        note = executed if executed is not None else "<small>not executed: shown for you to run yourself</small>"
        return (
            '<div class="rusty-card rusty-cmd"><b>CMD</b>'
            f'<pre><code class="rusty-command">$ {html.escape(action.command)}</code></pre>{note}</div>'
        )
    lines = action.content.count("\n") + 1
    return (
        f'<div class="rusty-card rusty-edit"><b>EDIT</b> <code>{html.escape(action.path)}</code> '
        f"<small>({lines} lines, see the work dir)</small>{_pre(action.content)}</div>"
    )


def render_protocol_error(text: str, error: ProtocolError) -> str:
    """An invalid reply: what the model said, what was wrong, and the correction it would get."""
    return (
        f'<div class="rusty-card rusty-error"><b>protocol error ({html.escape(error.kind)})</b>'
        f"{_pre(text)}<p>Correction sent to the model:</p>{_pre(error.correction_message)}</div>"
    )


def render_execution(returncode: int | None, stdout: str, stderr: str, limit_hit: str | None) -> str:
    """The output of a command run in the sandbox."""
    status = f"exit {returncode}" + (f", stopped by the {limit_hit} limit" if limit_hit else "")
    body = (stdout + ("\n" + stderr if stderr else ""))[-4000:]
    return f'<div class="rusty-exec"><small>ran in the sandbox: {html.escape(status)}</small>{_pre(body)}</div>'


def render_files(files: dict[str, str]) -> str:
    """The file view: every file of the session's work dir with its content."""
    if not files:
        return '<div class="rusty-files"><i>The work dir is empty; EDIT actions write here.</i></div>'
    parts = [
        f'<details open><summary><code>{html.escape(path)}</code></summary>{_pre(content)}</details>'
        for path, content in sorted(files.items())
    ]
    return '<div class="rusty-files">' + "".join(parts) + "</div>"


__all__ = [
    "render_action",
    "render_execution",
    "render_files",
    "render_partial",
    "render_protocol_error",
]
