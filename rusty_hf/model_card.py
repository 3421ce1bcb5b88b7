"""Moved to `rusty_hf.hub.model_card`; this name keeps old imports working.

    from rusty_hf.hub.model_card import write_model_card
"""

from rusty_hf.hub.model_card import *  # noqa: F403
from rusty_hf.hub.model_card import __all__  # noqa: F401
