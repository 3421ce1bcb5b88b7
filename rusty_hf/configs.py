"""Moved to `rusty_hf.training.arguments`; this name keeps old imports working.

    from rusty_hf.training.arguments import RLScriptArguments, RustyScriptArguments
"""

from rusty_hf.training.arguments import *  # noqa: F403
from rusty_hf.training.arguments import __all__  # noqa: F401
