"""Moved to `rusty_hf.hub.publishing`; this name keeps old imports working.

    from rusty_hf.hub.publishing import push_folder, write_model_card
"""

from rusty_hf.hub.publishing import *  # noqa: F403
from rusty_hf.hub.publishing import __all__  # noqa: F401
