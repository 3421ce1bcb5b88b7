"""Development conversations: sessions of requests in a row that anyone may read, to see what a model does.

The conversation suite (``rusty_hf.data.terminal.blind``) is blind: measured, never read or tuned on, so what a
model does wrong there shows only as intents and reasons. ``conversations_dev_v1.jsonl`` is written the same way
and in the same format (sessions of 5-8 requests in a row, each turn's reference, its check and its closing
check), from the intents and on three fixture repositories of its own (a Python project, one that also holds a
Rust crate, a plain folder of notes), without sight of the training phrasings or either blind suite. It is for
reading: ``python recipes/evaluate.py --suite terminal --terminal_split conversations_dev`` writes every reply to
``<model>/terminal_conversations_dev_eval.json``.

It is no floor and no held-out split: some of its requests are phrasings training uses too ("git diff"), and a
change chosen by reading it is then judged on the blind suites, never on it.

    from rusty_hf.data.terminal.blind.conversations import load_conversations
    from rusty_hf.data.terminal.dev import DEV_CONVERSATIONS_FILE
    sessions = load_conversations(cache_dir, DEV_CONVERSATIONS_FILE)
"""

from __future__ import annotations

from pathlib import Path

DEV_CONVERSATIONS_VERSION = "conversations_dev_v1"
DEV_CONVERSATIONS_FILE = Path(__file__).with_name(f"{DEV_CONVERSATIONS_VERSION}.jsonl")

__all__ = ["DEV_CONVERSATIONS_FILE", "DEV_CONVERSATIONS_VERSION"]
