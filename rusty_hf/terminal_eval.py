"""Moved to `rusty_hf.evaluation.terminal`; this name keeps old imports working.

    from rusty_hf.evaluation.terminal import evaluate_terminal, format_terminal_table
"""

from rusty_hf.evaluation.terminal import *  # noqa: F403
from rusty_hf.evaluation.terminal import __all__  # noqa: F401
