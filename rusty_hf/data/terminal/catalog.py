"""The whole intent catalogue: importing the three catalogue modules registers their intents."""

from __future__ import annotations

from rusty_hf.data.terminal import catalog_files, catalog_talk, catalog_work  # noqa: F401  (they register)
from rusty_hf.data.terminal.intents import INTENTS, Intent


def all_intents() -> dict[str, Intent]:
    """Every intent, by name."""
    return INTENTS
