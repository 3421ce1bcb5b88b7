"""Silence the upstream notices a rusty_hf entry point cannot avoid, each by its exact message.

    from rusty_hf.upstream_notices import quiet_upstream_notices
    quiet_upstream_notices()   # a recipe: before importing TRL (peft imports bitsandbytes, which logs)
    def main(): quiet_upstream_notices(); ...   # rusty-terminal, rusty-bench, the Space: they import no peft

Only entry points call this: importing rusty_hf as a library changes no warning filter. Every
filter names one message and says why it is upstream's and unavoidable; anything else still prints.
"""

from __future__ import annotations

import logging
import warnings

# transformers 5.23 deprecated the `gradient_checkpointing*` names for `activation_checkpointing*`,
# and TRL 1.16 still calls the old ones on the model at every generation (trl.models.utils:
# `unwrap_model_for_generation`, `disable_gradient_checkpointing`). Our own code uses the new names.
_TRL_OLD_CHECKPOINTING_CALLS = (
    r"`gradient_checkpointing_enable` is deprecated",
    r"`gradient_checkpointing_disable` is deprecated",
    r"`is_gradient_checkpointing` is deprecated",
)

# TRL marks `environment_factory` experimental on every trainer built with it; the multi-turn GRPO
# recipe (`environment: coding`) uses it on purpose, and its README says the API is TRL's.
_TRL_EXPERIMENTAL_ENVIRONMENT = r"You are using 'environment_factory', which is an experimental feature"

# bitsandbytes >= 0.50 on CPUs with AVX-512 BF16 tries to fetch a faster 4-bit GEMM from the Hub
# (`kernels-community/quantization-bitsandbytes`) when it is imported, and logs a warning when the
# optional `kernels` package is missing. Installing it would download code at run time (offline here,
# and a supply-chain hop we do not want by default); bitsandbytes' own CPU kernel is used instead.
_BNB_LOGGER = "bitsandbytes.backends.cpu.ops"
_BNB_KERNELS_NOTICE = "Failed to load CPU gemm_4bit_forward from kernels-community"


class _DropMessage(logging.Filter):
    """Drop log records whose unformatted message starts with `prefix`."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.prefix)


def quiet_upstream_notices() -> None:
    """Install the filters above (idempotent). Call before the noisy packages are imported."""
    for message in _TRL_OLD_CHECKPOINTING_CALLS:
        warnings.filterwarnings("ignore", message=message, category=FutureWarning)
    warnings.filterwarnings("ignore", message=_TRL_EXPERIMENTAL_ENVIRONMENT, category=UserWarning)
    bnb_logger = logging.getLogger(_BNB_LOGGER)
    if not any(isinstance(f, _DropMessage) for f in bnb_logger.filters):
        bnb_logger.addFilter(_DropMessage(_BNB_KERNELS_NOTICE))


__all__ = ["quiet_upstream_notices"]
